import { z } from "zod";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const threadsRouter = createTRPCRouter({
  list: protectedProcedure.query(({ ctx }) => ctx.harbor.runtime.threads.list(ctx.identity)),

  create: protectedProcedure
    .input(z.object({ title: z.string().trim().max(200).optional() }).strict().optional())
    .mutation(({ ctx, input }) => ctx.harbor.runtime.threads.create(ctx.identity, input?.title)),

  get: protectedProcedure
    .input(z.object({ threadId: z.string().min(1).max(200) }).strict())
    .query(({ ctx, input }) => ctx.harbor.runtime.threads.get(ctx.identity, input.threadId)),
});
