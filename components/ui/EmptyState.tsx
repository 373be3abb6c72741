import type { LucideIcon } from "lucide-react";
import type { ComponentProps, ReactNode } from "react";
import { cn } from "./cn";

/** What an empty list or an unselected pane says: an icon, a line, an optional hint. */
export function EmptyState({
  icon: Icon,
  title,
  children,
  className,
  ...props
}: { icon?: LucideIcon; title: ReactNode; children?: ReactNode } & Omit<ComponentProps<"div">, "title">) {
  return (
    <div className={cn("flex flex-col items-center justify-center gap-2 px-6 py-10 text-center", className)} {...props}>
      {Icon ? (
        <span className="mb-1 grid size-10 place-items-center rounded-full bg-muted text-muted-foreground">
          <Icon className="size-5" aria-hidden="true" />
        </span>
      ) : null}
      <p className="text-sm font-medium">{title}</p>
      {children ? <div className="max-w-sm text-sm text-muted-foreground">{children}</div> : null}
    </div>
  );
}
