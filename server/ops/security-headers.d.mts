/** The API's content policy (see security-headers.mjs). */
export const API_POLICY: string;

/** The headers every answer carries (see security-headers.mjs). */
export const SECURITY_HEADERS: readonly { key: string; value: string }[];
