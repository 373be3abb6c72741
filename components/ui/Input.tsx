import type { ComponentProps, ReactNode } from "react";
import { cn } from "./cn";

const control =
  "w-full min-w-0 rounded-lg border border-input bg-card px-3 text-base text-foreground shadow-xs transition-colors placeholder:text-muted-foreground disabled:cursor-not-allowed disabled:bg-muted disabled:text-muted-foreground sm:text-sm";

export function Input({ className, ...props }: ComponentProps<"input">) {
  return <input className={cn(control, "h-9 py-1", className)} {...props} />;
}

export function Textarea({ className, ...props }: ComponentProps<"textarea">) {
  return <textarea className={cn(control, "min-h-16 resize-none py-2 leading-relaxed", className)} {...props} />;
}

/** A native select: the platform's own picker on phones, keyboard and screen readers included. */
export function Select({ className, ...props }: ComponentProps<"select">) {
  return <select className={cn(control, "h-9 cursor-pointer px-2 py-1", className)} {...props} />;
}

/** A labelled control: the label wraps it, so the control's accessible name is the label's text. */
export function Field({
  label,
  hint,
  className,
  children,
}: {
  label: ReactNode;
  hint?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <label className={cn("grid gap-1.5", className)}>
      <span className="text-sm font-medium">{label}</span>
      {children}
      {hint ? <span className="text-xs text-muted-foreground">{hint}</span> : null}
    </label>
  );
}
