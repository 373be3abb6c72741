import { findUserProfile } from "@/server/db/queries/users";
import { NotFoundError } from "@/server/runtime";
import { createTRPCRouter, protectedProcedure } from "../trpc";

export const meRouter = createTRPCRouter({
  /** Who the caller is: handy for curl users checking their token. */
  get: protectedProcedure.query(async ({ ctx }) => {
    const profile = await findUserProfile(ctx.harbor.db, ctx.identity.userId);
    if (!profile) throw new NotFoundError("User");
    return profile;
  }),
});
