"use client";

import { useCallback, useEffect, useRef, useState } from "react";

/** How long a Copy button says "Copied" after it copied. */
const COPIED_MS = 2_000;

/**
 * Copies text to the clipboard and says so for a moment: `copied` is true for two seconds after a
 * copy that worked. A copy the browser refused leaves it false (nothing claims a copy that failed).
 */
export function useCopy(): { copied: boolean; copy(text: string): Promise<void> } {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = useCallback(async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // The browser refused (no permission, not a secure page): the button keeps saying "Copy".
      return;
    }
    setCopied(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPIED_MS);
  }, []);
  return { copied, copy };
}
