import { z } from "zod";
import { id, messageText, text } from "@/server/edge/inputs";
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

  /**
   * Edit-and-resend: the owner's message and everything after it leave the conversation (superseded,
   * never deleted), the new text takes its place and a new run answers it; follow it on `runs.events`.
   * CONFLICT (RUN_IN_PROGRESS) while a run of the thread is queued, running or paused.
   */
  edit: protectedProcedure
    .input(z.strictObject({ threadId: id, messageId: id, text: messageText }))
    .mutation(({ ctx, input }) => ctx.harbor.runtime.rewind(ctx.identity, { ...input, requestId: ctx.requestId })),

  /** Regenerate: the conversation's last reply leaves it and a new run answers the same message; as `edit`. */
  regenerate: protectedProcedure
    .input(z.strictObject({ threadId: id, messageId: id }))
    .mutation(({ ctx, input }) => ctx.harbor.runtime.rewind(ctx.identity, { ...input, requestId: ctx.requestId })),

  get: protectedProcedure
    .input(z.object({ threadId: id }).strict())
    .query(({ ctx, input }) => ctx.harbor.runtime.threads.get(ctx.identity, input.threadId)),
});
