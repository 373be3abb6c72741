import { redirect } from "next/navigation";
import { currentIdentity } from "@/server/auth/session";
import { safeReturnPath } from "@/server/auth/return-path";
import { SignInForm } from "./SignInForm";

export const dynamic = "force-dynamic";

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string | string[] }> }) {
  const returnTo = safeReturnPath((await searchParams).callbackUrl);
  if (await currentIdentity()) redirect(returnTo);
  return (
    <main className="centered">
      <div className="card narrow">
        <div className="brand large">⚓ Harbor</div>
        <h1>Sign in</h1>
        <p className="muted">Runs that pause, and resume once, for the right person.</p>
        <SignInForm callbackUrl={returnTo} />
        <details className="hint">
          <summary>Demo accounts</summary>
          <p>
            <code>alice@acme.test</code> (member), <code>bob@acme.test</code> (approver), <code>carol@acme.test</code> (admin),{" "}
            <code>mallory@globex.test</code> (admin of another tenant) — password <code>harbor</code>.
          </p>
        </details>
      </div>
    </main>
  );
}
