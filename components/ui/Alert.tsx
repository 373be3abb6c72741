import { CircleAlertIcon } from "lucide-react";
import type { ComponentProps, ComponentType } from "react";
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

/** A state worth knowing said in place, calmly (role="status"): a pause, a lost connection. */
export function WarningNotice({
  icon: Icon,
  className,
  children,
  ...props
}: ComponentProps<"div"> & { icon: ComponentType<{ className?: string; "aria-hidden"?: boolean | "true" }> }) {
  return (
    <div
      role="status"
      className={cn(
        "flex items-start gap-2.5 rounded-xl border border-warning-border bg-warning-bg px-4 py-3 text-sm text-warning-fg",
        className,
      )}
      {...props}
    >
      <Icon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <p>{children}</p>
    </div>
  );
}
