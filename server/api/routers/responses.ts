import { z } from "zod";
import { id } from "@/server/edge/inputs";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const responsesRouter = createTRPCRouter({
  /** The same answer as `GET /api/responses/{responseId}`. */
  get: protectedProcedure
    .input(z.strictObject({ responseId: id, threadId: id.optional() }))
    .query(({ ctx, input }) => ctx.harbor.runtime.responses.get(ctx.identity, input.responseId, input.threadId)),
});
