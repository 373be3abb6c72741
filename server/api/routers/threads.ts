import { z } from "zod";
import { id, text } from "../inputs";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const threadsRouter = createTRPCRouter({
  list: protectedProcedure.query(({ ctx }) => ctx.harbor.runtime.threads.list(ctx.identity)),

  create: protectedProcedure
    .input(
      z
        .object({ title: text(200).optional() })
        .strict()
        .optional(),
    )
    .mutation(({ ctx, input }) => ctx.harbor.runtime.threads.create(ctx.identity, input?.title)),

  get: protectedProcedure
    .input(z.object({ threadId: id }).strict())
    .query(({ ctx, input }) => ctx.harbor.runtime.threads.get(ctx.identity, input.threadId)),
});
