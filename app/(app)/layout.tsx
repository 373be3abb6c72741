import type { ReactNode } from "react";
import { Header } from "@/components/Header";
import { Toaster } from "@/components/ui/Toaster";
import { serverApi } from "@/server/api/server-caller";
import { requireIdentity } from "@/server/auth/session";
import { signOutAction } from "../(auth)/signin/actions";

export const dynamic = "force-dynamic";

/** The signed-in application: chat, approvals, console and connections under one header. */
export default async function AppLayout({ children }: { children: ReactNode }) {
  // Signed out, the visitor signs in and comes back to the page they asked for.
  await requireIdentity();
  const profile = await (await serverApi()).me.get();
  return (
    <div className="flex h-dvh flex-col">
      <Header profile={profile} signOutAction={signOutAction} />
      <main id="main" className="flex min-h-0 flex-1 flex-col">
        <Toaster>{children}</Toaster>
      </main>
    </div>
  );
}
