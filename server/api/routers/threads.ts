import { z } from "zod";
import { id, text } from "@/server/edge/inputs";
import { MAX_THREAD_TITLE } from "@/server/runtime";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const threadsRouter = createTRPCRouter({
  /** The caller's threads, newest first, each with its agent and (a helper's) parent thread; `search` filters by title and messages. */
  list: protectedProcedure
    .input(z.strictObject({ search: text(200).optional() }).optional())
    .query(({ ctx, input }) => ctx.harbor.runtime.threads.list(ctx.identity, { search: input?.search })),

  create: protectedProcedure
    .input(
      z
        .object({ title: text(200).optional() })
        .strict()
        .optional(),
    )
    .mutation(({ ctx, input }) => ctx.harbor.runtime.threads.create(ctx.identity, input?.title)),

  /** The owner renames their thread (one line, 1–200 characters). */
  rename: protectedProcedure
    .input(z.strictObject({ threadId: id, title: text(MAX_THREAD_TITLE).pipe(z.string().min(1, "must not be empty")) }))
    .mutation(({ ctx, input }) => ctx.harbor.runtime.threads.rename(ctx.identity, input.threadId, input.title)),

  /** The owner deletes their thread and its helpers' threads; refused (CONFLICT) while a run on them is live. */
  delete: protectedProcedure
    .input(z.strictObject({ threadId: id }))
    .mutation(({ ctx, input }) => ctx.harbor.runtime.threads.delete(ctx.identity, input.threadId)),

  get: protectedProcedure
    .input(z.object({ threadId: id }).strict())
    .query(({ ctx, input }) => ctx.harbor.runtime.threads.get(ctx.identity, input.threadId)),
});
