import { headers } from "next/headers";
import { cache } from "react";
import { createCaller } from "./root";
import { createContext } from "./trpc";

/** A tRPC caller for server components, with the identity of the current request. */
export const serverApi = cache(async () => createCaller(await createContext(await headers())));
