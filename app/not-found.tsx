import { SearchXIcon } from "lucide-react";
import { Header, PublicHeader } from "@/components/Header";
import { PageMessage } from "@/components/PageMessage";
import { serverApi } from "@/server/api/server-caller";
import { currentIdentity } from "@/server/auth/session";
import { signOutAction } from "./(auth)/signin/actions";

export const dynamic = "force-dynamic";

/**
 * Unknown URLs, and records that are not the viewer's: the app's header (or, signed out, the
 * brand and Sign in) above a `main` that says so.
 */
export default async function NotFound() {
  const signedIn = (await currentIdentity()) !== null;
  const profile = signedIn ? await (await serverApi()).me.get().catch(() => null) : null;
  return (
    <div className="flex h-dvh flex-col">
      {profile ? <Header profile={profile} signOutAction={signOutAction} /> : <PublicHeader />}
      <main id="main" className="flex min-h-0 flex-1 flex-col">
        <PageMessage
          icon={SearchXIcon}
          title="Not found"
          testId="not-found"
          back={profile ? undefined : { href: "/signin", label: "Sign in" }}
        >
          There is nothing here for you — it may not exist, or it belongs to someone else.
        </PageMessage>
      </main>
    </div>
  );
}
