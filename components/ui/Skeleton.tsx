import type { ComponentProps } from "react";
import { cn } from "./cn";

/** A placeholder while something loads; hidden from screen readers (the container says it is busy). */
export function Skeleton({ className, ...props }: ComponentProps<"div">) {
  return <div aria-hidden="true" className={cn("animate-pulse-soft rounded-md bg-muted", className)} {...props} />;
}
