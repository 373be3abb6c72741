"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Skeleton } from "@/components/ui/Skeleton";
import { BudgetLimits } from "./BudgetLimits";
import { UsageByUser } from "./BudgetUsers";
import { WorkspaceUsage, YourUsage } from "./BudgetUsage";

/**
 * Model token budgets. Admins see the workspace's use against its budgets, each user's use, and
 * the form for the four limits; members see only their own use against the limits each user has.
 */
export function Budgets({ admin }: { admin: boolean }) {
  const trpc = useTRPC();
  // Runs add tokens as they go: the meters catch up every half minute, and when the tab comes back.
  const view = useQuery(trpc.budgets.get.queryOptions(undefined, { refetchInterval: 30_000 }));
  return (
    <div className="flex-1 overflow-y-auto bg-surface" data-testid="budgets">
      <div className="mx-auto grid w-full max-w-5xl gap-4 p-3 sm:p-6">
        <header className="grid gap-2">
          <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
            <h1 className="text-lg font-semibold tracking-tight">Model budgets</h1>
          </div>
          <p className="max-w-3xl text-sm text-muted-foreground">
            {admin
              ? "How many model tokens your organisation uses, per UTC day and month, and the budgets that stop runs before they ask the model."
              : "How many model tokens you have used, per UTC day and month. Near a limit your runs say so; at it they stop before asking the model."}
          </p>
        </header>
        {view.isPending ? (
          <div className="grid gap-4" role="status" aria-busy="true" aria-label="Loading model budgets">
            <Skeleton className="h-44 rounded-xl" />
            {admin ? <Skeleton className="h-64 rounded-xl" /> : null}
          </div>
        ) : view.isError ? (
          <ErrorAlert>Could not load the model budgets: {view.error.message}</ErrorAlert>
        ) : admin ? (
          <>
            <div className="grid items-start gap-4 lg:grid-cols-2">
              <WorkspaceUsage view={view.data} />
              <BudgetLimits view={view.data} />
            </div>
            <UsageByUser view={view.data} />
          </>
        ) : (
          <YourUsage view={view.data} />
        )}
      </div>
    </div>
  );
}
