"use client";

import { TimerIcon } from "lucide-react";
import { useEffect, useState } from "react";
import { cn } from "@/components/ui/cn";

function format(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes}:${String(seconds).padStart(2, "0")}`;
}

/** "expires in 14:32", ticking; "expired" once past. */
export function Countdown({ until }: { until: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = Date.parse(until) - now;
  return (
    <time
      dateTime={until}
      className={cn(
        "inline-flex items-center gap-1 whitespace-nowrap tabular-nums",
        left < 60_000 ? "font-semibold text-destructive" : "text-muted-foreground",
      )}
      title={new Date(until).toLocaleString()}
    >
      <TimerIcon className="size-3.5" aria-hidden="true" />
      {left > 0 ? `expires in ${format(left)}` : "expired"}
    </time>
  );
}
