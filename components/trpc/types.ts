/**
 * What the API hands the components, as tRPC infers it from the router: components never import
 * server internals, only these types and the domain vocabulary.
 */
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

export type RouterOutputs = inferRouterOutputs<AppRouter>;

/** One interaction as `interactions.list` and `interactions.get` give it. */
export type InteractionView = RouterOutputs["interactions"]["list"][number];
