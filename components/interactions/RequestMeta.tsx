import { UserIcon } from "lucide-react";
import type { ReactNode } from "react";
import type { InteractionView } from "@/components/trpc/types";
import { cn } from "@/components/ui/cn";

/** One labelled fact in a request's details (a `<dl>`'s item); `wide` spans both columns from small screens up. */
export function MetaItem({ label, testId, wide, children }: { label: string; testId?: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={cn("min-w-0", wide && "sm:col-span-2")}>
      <dt className="text-xs font-medium text-muted-foreground">{label}</dt>
      <dd className="mt-0.5 [overflow-wrap:anywhere]" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}

/** Who asked: their name, and their email beneath it (cut short on a narrow screen). */
export function RequestedBy({ requester }: { requester: InteractionView["requester"] }) {
  return (
    <MetaItem label="Requested by">
      <span className="flex min-w-0 items-center gap-1.5">
        <UserIcon className="size-3.5 shrink-0 text-muted-foreground" aria-hidden="true" />
        {requester.name}
      </span>
      <span className="block truncate text-xs text-muted-foreground">{requester.email}</span>
    </MetaItem>
  );
}
