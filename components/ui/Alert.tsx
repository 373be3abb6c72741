import { CircleAlertIcon } from "lucide-react";
import type { ComponentProps } from "react";
import { cn } from "./cn";

/** An error said in place (role="alert": read out as it appears). */
export function ErrorAlert({ className, children, ...props }: ComponentProps<"div">) {
  return (
    <div
      role="alert"
      className={cn(
        "flex items-start gap-2 rounded-lg border border-danger-border bg-danger-bg px-3 py-2 text-sm text-danger-fg [overflow-wrap:anywhere]",
        className,
      )}
      {...props}
    >
      <CircleAlertIcon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <div className="min-w-0">{children}</div>
    </div>
  );
}
