"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Skeleton } from "@/components/ui/Skeleton";
import { RetentionErase } from "./RetentionErase";
import { RetentionPolicy } from "./RetentionPolicy";
import { RetentionSweep } from "./RetentionSweep";

/** "In 52 min" and "8m ago" move on by themselves: the clock they are read against, ticking. */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/**
 * Data retention for the tenant's admins: how long conversations and the audit log are kept (their
 * own setting or the deployment's), what the next sweep will delete and when, and erasing one
 * user's conversations on request.
 */
export function Retention() {
  const trpc = useTRPC();
  // What the next sweep deletes changes as time passes and people talk: counted again each half minute.
  const view = useQuery(trpc.retention.get.queryOptions(undefined, { refetchInterval: 30_000 }));
  const now = useNow(15_000);
  return (
    <div className="flex-1 overflow-y-auto bg-surface" data-testid="retention">
      <div className="mx-auto grid w-full max-w-5xl gap-4 p-3 sm:p-6">
        <header className="grid gap-2">
          <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
            <h1 className="text-lg font-semibold tracking-tight">Data retention</h1>
          </div>
          <p className="max-w-3xl text-sm text-muted-foreground">
            What your organisation keeps, and for how long. A sweep deletes what is past the policy; until then nothing changes.
          </p>
        </header>
        {view.isPending ? (
          <div className="grid items-start gap-4 lg:grid-cols-2" role="status" aria-busy="true" aria-label="Loading the retention policy">
            <Skeleton className="h-64 rounded-xl" />
            <Skeleton className="h-64 rounded-xl" />
          </div>
        ) : view.isError ? (
          <ErrorAlert>Could not load the retention policy: {view.error.message}</ErrorAlert>
        ) : (
          <div className="grid items-start gap-4 lg:grid-cols-2">
            <RetentionPolicy view={view.data} />
            <RetentionSweep view={view.data} now={now} />
          </div>
        )}
        <RetentionErase />
      </div>
    </div>
  );
}
