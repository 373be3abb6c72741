import { ArrowLeftIcon, type LucideIcon } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";

/** A whole page that only says something: not found, not yours, not for your role. */
export function PageMessage({
  icon: Icon,
  title,
  children,
  testId,
  back = { href: "/chat", label: "Back to your conversations" },
}: {
  icon: LucideIcon;
  title: string;
  children: ReactNode;
  testId?: string;
  /** Where the page's one button leads. */
  back?: { href: string; label: string };
}) {
  return (
    <div className="grid flex-1 place-items-center overflow-y-auto p-4">
      <Card className="w-full max-w-md p-6 text-center sm:p-8" data-testid={testId}>
        <span className="mx-auto mb-4 grid size-12 place-items-center rounded-full bg-muted text-muted-foreground">
          <Icon className="size-6" aria-hidden="true" />
        </span>
        <h1 className="text-xl font-semibold tracking-tight">{title}</h1>
        <p className="mt-2 text-sm text-muted-foreground">{children}</p>
        <Button asChild variant="primary" className="mt-6 no-underline">
          <Link href={back.href}>
            <ArrowLeftIcon aria-hidden="true" />
            {back.label}
          </Link>
        </Button>
      </Card>
    </div>
  );
}
