"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ShieldCheckIcon } from "lucide-react";
import { ArgList } from "@/components/interactions/InteractionCard";
import { argEntries, useToolCatalog } from "@/components/interactions/tools";
import { useTRPC } from "@/components/trpc/client";
import { ErrorAlert } from "@/components/ui/Alert";
import { Skeleton } from "@/components/ui/Skeleton";
import { largeTransferAmount } from "./confirmation";
import { DecisionControl } from "./DecisionControl";

/**
 * The console's decision on a run's open approval gate: the same control as the inbox's (a large
 * transfer's amount is typed before it is approved), showing what the gate asks. The decision names
 * the gate shown, so it never lands on another one that opened meanwhile.
 */
export function RunGateDecision({ runId, threadId }: { runId: string; threadId: string | undefined }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const catalog = useToolCatalog();
  const requests = useQuery(
    trpc.interactions.list.queryOptions({ threadId: threadId ?? "", status: "pending" }, { enabled: threadId !== undefined }),
  );
  const steer = useMutation(
    trpc.runs.steer.mutationOptions({
      onSettled: () =>
        Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.runs.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.interactions.pathKey() }),
        ]),
    }),
  );
  if (threadId === undefined || requests.isPending) return <Skeleton className="h-20" />;
  if (requests.isError) return <ErrorAlert>Could not load the run&apos;s gate: {requests.error.message}</ErrorAlert>;
  const gates = requests.data.filter((i) => i.runId === runId && i.kind === "approval");
  // The viewer may not see a gate routed elsewhere: the run's one open gate is decided, unnamed (the server checks who may).
  const gate = gates[0];
  const title = gate?.tool ? catalog.title(gate.tool.name) : "The run's approval gate";
  return (
    <div className="grid gap-3 rounded-lg border p-3" data-testid="run-gate" data-interaction-id={gate?.interactionId ?? ""}>
      <p className="flex items-start gap-2 text-sm font-medium [overflow-wrap:anywhere]">
        <ShieldCheckIcon className="mt-0.5 size-4 shrink-0 text-primary" aria-hidden="true" />
        {gate?.message ?? title}
      </p>
      {gate?.tool ? <ArgList entries={argEntries(gate.tool.args)} /> : null}
      {gates.length > 1 ? (
        <p className="text-xs text-muted-foreground">This run has {gates.length} open gates; this is the first.</p>
      ) : null}
      <DecisionControl
        key={gate?.interactionId ?? "gate"}
        busy={steer.isPending}
        large={gate ? largeTransferAmount(gate) : null}
        summary={gate?.message ?? title}
        noun="gate"
        onDecide={(approved, reason) =>
          steer.mutateAsync({
            runId,
            instruction: {
              type: approved ? "APPROVE" : "REJECT",
              ...(gate ? { interactionId: gate.interactionId } : {}),
              ...(reason ? { reason } : {}),
            },
          })
        }
      />
      {steer.error ? <ErrorAlert>{steer.error.message}</ErrorAlert> : null}
    </div>
  );
}
