/**
 * Request bodies with a hard size limit, so an oversized body is refused with 413 without being
 * buffered whole.
 */
import type { EdgeRequest } from "@/server/edge/node-request";
import { HarborError, InvalidInputError } from "@/server/runtime";
import { parseBoundedJson } from "./request-guards";

export const MAX_BODY_BYTES = 1024 * 1024;

const tooLarge = () => new HarborError("PAYLOAD_TOO_LARGE", `The request body exceeds ${MAX_BODY_BYTES} bytes.`);

/** The body as text, or PAYLOAD_TOO_LARGE as soon as it passes `limit` bytes. */
export async function readBoundedText(request: Pick<EdgeRequest, "headers" | "body">, limit = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The JSON body of a request. Only `application/json` is read: browsers cannot send it cross-site
 * without a CORS preflight, so a cookie-authenticated POST from another site's form is refused.
 */
export async function readJsonBody(request: Pick<EdgeRequest, "headers" | "body">, limit = MAX_BODY_BYTES): Promise<unknown> {
  if (!/^application\/json\s*(;|$)/i.test(request.headers.get("content-type") ?? "")) {
    throw new HarborError("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json.");
  }
  const text = await readBoundedText(request, limit);
  if (text.length === 0) throw new InvalidInputError("body", "a JSON body is required");
  return parseBoundedJson(text);
}
