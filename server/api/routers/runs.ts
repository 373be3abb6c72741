import { tracked } from "@trpc/server";
import { z } from "zod";
import { PAUSE_REASONS, RUN_STATUSES } from "@/server/domain";
import { SteeringInstruction } from "@/server/runtime";
import { afterSeq, id, lastEventId } from "@/server/edge/inputs";
import { adminProcedure, createTRPCRouter, protectedProcedure } from "../trpc";

export const runsRouter = createTRPCRouter({
  list: protectedProcedure
    .input(
      z
        .strictObject({
          status: z.enum(RUN_STATUSES).optional(),
          reason: z.enum(PAUSE_REASONS).optional(),
          /** Search: a run id prefix, or part of the goal, thread title, owner's name or agent id. */
          q: z.string().trim().max(200).optional(),
        })
        .optional(),
    )
    .query(({ ctx, input }) => ctx.harbor.runtime.runs.list(ctx.identity, input ?? {})),

  /** Tokens models spent on the runs one may list: the tenant's for admins, one's own for members. */
  usage: protectedProcedure
    .input(z.strictObject({ since: z.iso.datetime({ offset: true }).optional() }).optional())
    .query(({ ctx, input }) => ctx.harbor.runtime.runs.usage(ctx.identity, input?.since ? new Date(input.since) : undefined)),

  get: protectedProcedure
    .input(z.strictObject({ runId: id }))
    .query(({ ctx, input }) => ctx.harbor.runtime.runs.get(ctx.identity, input.runId)),

  timeline: protectedProcedure
    .input(z.strictObject({ runId: id, afterSeq: afterSeq.optional() }))
    .query(({ ctx, input }) => ctx.harbor.runtime.runs.timeline(ctx.identity, input.runId, input.afterSeq)),

  /** Which of the runs one may list changed (ids and event types only): a list asks again when told. */
  changes: protectedProcedure.subscription(({ ctx, signal }) => ctx.harbor.runtime.watchRunList(ctx.identity, signal)),

  /** The scheduler's queue of this serving process (admins): the tenant's own runs, and the process's capacity. */
  queue: adminProcedure.query(({ ctx }) => ctx.harbor.runtime.schedulerQueue(ctx.identity)),

  /** One of the nine instructions; anything else is refused by the closed union. */
  steer: protectedProcedure
    .input(z.strictObject({ runId: id, instruction: SteeringInstruction }))
    .mutation(({ ctx, input }) => ctx.harbor.runtime.runs.steer(ctx.identity, input.runId, input.instruction)),

  /**
   * A run's events (each `tracked` by its seq, so a reconnecting client resumes with
   * `Last-Event-ID`), from `afterSeq` through the run's end. Owners follow their runs, admins any
   * run of their tenant.
   */
  events: protectedProcedure
    .input(z.strictObject({ runId: id, afterSeq: afterSeq.optional(), lastEventId: lastEventId.nullish() }))
    .subscription(async ({ ctx, input, signal }) => {
      const resumeFrom = input.lastEventId ?? input.afterSeq ?? 0;
      // Awaited here, so not-found and forbidden are answered as such (not as a stream error to retry).
      const events = await ctx.harbor.runtime.watchRun(ctx.identity, input.runId, resumeFrom, signal);
      return (async function* () {
        for await (const logged of events) yield tracked(String(logged.seq), { seq: logged.seq, at: logged.at, event: logged.event });
      })();
    }),
});
