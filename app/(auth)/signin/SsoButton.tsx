"use client";

import { KeyRoundIcon } from "lucide-react";
import { useFormStatus } from "react-dom";
import { Button } from "@/components/ui/Button";
import { ssoSignInAction } from "./actions";

function Submit({ name, primary }: { name: string; primary: boolean }) {
  const { pending } = useFormStatus();
  return (
    <Button
      type="submit"
      variant={primary ? "primary" : "secondary"}
      size="lg"
      // Long provider names wrap on a phone instead of overflowing the card.
      className="h-auto min-h-10 w-full py-2 text-center whitespace-normal"
      disabled={pending}
    >
      <KeyRoundIcon aria-hidden="true" />
      {pending ? `Opening ${name}…` : `Sign in with ${name}`}
    </Button>
  );
}

/** Single sign-on: a form, so it works before the page's scripts load; Auth.js sends the browser to the provider. */
export function SsoButton({ name, callbackUrl, primary }: { name: string; callbackUrl: string; primary: boolean }) {
  return (
    <form action={ssoSignInAction}>
      <input type="hidden" name="callbackUrl" value={callbackUrl} />
      <Submit name={name} primary={primary} />
    </form>
  );
}
