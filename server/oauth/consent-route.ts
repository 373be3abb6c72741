/**
 * What the two consent routes share: they answer a person with a page. Signed out → a sign-in page
 * that returns here; a refusal → a page saying why, with the code's HTTP status.
 */
import { httpStatusOf } from "@/server/edge/errors";
import { identityFrom } from "@/server/auth/identity";
import { harbor, type Harbor } from "@/server/harbor";
import { requestIdFrom, requestLogger } from "@/server/log";
import { asHarborError, HarborError, type VerifiedIdentity } from "@/server/runtime";
import { consentRefusedPage, CONSENT_TITLES, signInFirstPage } from "./callback-page";

export async function consentPage(
  request: Request,
  leg: (h: Harbor, identity: VerifiedIdentity, url: URL) => Promise<Response>,
  failure: string,
): Promise<Response> {
  const requestId = requestIdFrom(request.headers);
  const url = new URL(request.url);
  try {
    const h = await harbor();
    const identity = await identityFrom(h.db, request.headers);
    if (!identity) return signInFirstPage(`${url.pathname}${url.search}`);
    return await leg(h, identity, url);
  } catch (thrown) {
    if (!HarborError.is(thrown)) requestLogger(requestId).error({ err: thrown }, failure);
    const error = asHarborError(thrown);
    return consentRefusedPage(httpStatusOf(error.code), CONSENT_TITLES[error.code] ?? "Something went wrong", error.message);
  }
}
