"use client";

import { CheckIcon, CopyIcon } from "lucide-react";
import ReactMarkdown, { defaultUrlTransform, type Components, type ExtraProps } from "react-markdown";
import remarkGfm from "remark-gfm";
import type { ComponentProps } from "react";
import { stableMarkdown } from "./streaming-markdown";
import { useCopy } from "./useCopy";

/** Links go only to the web or to a mail program: no `javascript:`, `data:` or relative addresses. */
const SAFE_URL = /^(https?:|mailto:)/i;

function safeUrl(url: string): string {
  const cleaned = defaultUrlTransform(url);
  return SAFE_URL.test(cleaned) ? cleaned : "";
}

const components: Components = {
  a: ({ href, children }) =>
    href ? (
      <a
        href={href}
        target="_blank"
        rel="noopener noreferrer"
        className="font-medium text-primary underline underline-offset-2 hover:no-underline"
      >
        {children}
      </a>
    ) : (
      // An address that is not allowed keeps its words, without a link.
      <span>{children}</span>
    ),
  // Images are not loaded from wherever a message points: their description stands in.
  img: ({ alt }) => (alt ? <span className="text-muted-foreground">[{alt}]</span> : null),
  p: ({ children }) => <p className="my-2 first:mt-0 last:mb-0">{children}</p>,
  ul: ({ children }) => <ul className="my-2 list-disc space-y-1 pl-5">{children}</ul>,
  ol: ({ children }) => <ol className="my-2 list-decimal space-y-1 pl-5">{children}</ol>,
  h1: ({ children }) => <p className="mt-3 mb-1 text-base font-semibold">{children}</p>,
  h2: ({ children }) => <p className="mt-3 mb-1 text-base font-semibold">{children}</p>,
  h3: ({ children }) => <p className="mt-3 mb-1 font-semibold">{children}</p>,
  h4: ({ children }) => <p className="mt-2 mb-1 font-semibold">{children}</p>,
  h5: ({ children }) => <p className="mt-2 mb-1 font-semibold">{children}</p>,
  h6: ({ children }) => <p className="mt-2 mb-1 font-semibold">{children}</p>,
  blockquote: ({ children }) => <blockquote className="my-2 border-l-2 pl-3 text-muted-foreground">{children}</blockquote>,
  hr: () => <hr className="my-3 border-border" />,
  pre: CodeBlock,
  code: ({ children, className }) => (
    <code className={`${className ?? ""} rounded bg-muted px-1 py-0.5 font-mono text-[0.85em] [overflow-wrap:anywhere]`}>{children}</code>
  ),
  table: ({ children }) => (
    <div className="my-2 max-w-full overflow-x-auto" tabIndex={0}>
      <table className="text-sm [&_td]:border [&_td]:px-2 [&_td]:py-1 [&_th]:border [&_th]:bg-muted/60 [&_th]:px-2 [&_th]:py-1 [&_th]:text-left">
        {children}
      </table>
    </div>
  ),
  del: ({ children }) => <del className="text-muted-foreground">{children}</del>,
  // A task list's boxes show what is done; they are not a form to fill in.
  li: ({ children, className }) => (
    <li className={className?.includes("task-list-item") ? "-ml-5 flex list-none items-baseline gap-2" : undefined}>{children}</li>
  ),
  input: ({ type, checked }) =>
    type === "checkbox" ? (
      <input
        type="checkbox"
        checked={!!checked}
        // Not `disabled`: a browser greys disabled boxes until "done" is hard to tell from "not done".
        readOnly
        aria-readonly
        tabIndex={-1}
        aria-label={checked ? "Done" : "Not done"}
        className="pointer-events-none translate-y-0.5 accent-primary"
      />
    ) : null,
};

/** The text of a hast node and all its children: a code block's code, as written. */
interface HastNode {
  type: string;
  value?: string;
  children?: HastNode[];
}
const textOf = (node: HastNode | undefined): string =>
  node ? (node.type === "text" ? (node.value ?? "") : (node.children ?? []).map(textOf).join("")) : "";

/** A fenced or indented code block, with its language (when named) and a Copy button above it. */
function CodeBlock({ children, node }: ComponentProps<"pre"> & ExtraProps) {
  const { copied, copy } = useCopy();
  const code = textOf(node).replace(/\n$/, "");
  const first = node?.children[0];
  const classes = first?.type === "element" ? first.properties.className : undefined;
  const language = Array.isArray(classes)
    ? classes
        .map(String)
        .find((c) => c.startsWith("language-"))
        ?.slice("language-".length)
    : undefined;
  return (
    <div className="my-2 max-w-full overflow-hidden rounded-lg border bg-muted" data-testid="code-block">
      <div className="flex h-8 items-center justify-between border-b pr-1 pl-3 text-xs text-muted-foreground">
        <span>{language ?? "code"}</span>
        <button
          type="button"
          className="inline-flex h-7 items-center gap-1 rounded-md px-2 font-medium hover:bg-background/70 hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
          aria-label={copied ? "Copied" : "Copy code"}
          onClick={() => void copy(code)}
        >
          {copied ? <CheckIcon className="size-3.5" aria-hidden="true" /> : <CopyIcon className="size-3.5" aria-hidden="true" />}
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <pre
        className="max-w-full overflow-x-auto px-3 py-2 font-mono text-[0.8125rem] leading-relaxed whitespace-pre [&>code]:bg-transparent [&>code]:p-0"
        tabIndex={0}
      >
        {children}
      </pre>
    </div>
  );
}

const PLUGINS = [remarkGfm, htmlAsText];

/**
 * An assistant's message as GitHub-flavoured Markdown (tables, task lists, strikethrough,
 * autolinks, fenced code), safely: raw HTML in it is shown as text (never rendered), links open in
 * a new tab without access to this page, and only http, https and mailto addresses link. Headings
 * render as bold paragraphs, so a message cannot break the page's heading outline. While it
 * `streaming`, lines whose shape a later line decides wait for it (see stableMarkdown).
 */
export function Markdown({ children, streaming }: { children: string; streaming?: boolean }) {
  return (
    <ReactMarkdown remarkPlugins={PLUGINS} urlTransform={safeUrl} components={components}>
      {streaming ? stableMarkdown(children) : children}
    </ReactMarkdown>
  );
}

/** A node of the Markdown tree, as far as `htmlAsText` needs it. */
interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

/**
 * Raw HTML in a reply is shown as the text it is, never rendered: `send an email to <address>`
 * keeps its `<address>`, and `<script>` stays visible words.
 */
function htmlAsText() {
  const walk = (node: MdNode): void => {
    if (node.type === "html") node.type = "text";
    node.children?.forEach(walk);
  };
  return walk;
}
