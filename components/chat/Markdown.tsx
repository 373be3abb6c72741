"use client";

import ReactMarkdown, { defaultUrlTransform, type Components } from "react-markdown";

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
  pre: ({ children }) => (
    <pre
      className="my-2 max-w-full overflow-x-auto rounded-lg border bg-muted px-3 py-2 font-mono text-[0.8125rem] leading-relaxed whitespace-pre [&>code]:bg-transparent [&>code]:p-0"
      tabIndex={0}
      data-testid="code-block"
    >
      {children}
    </pre>
  ),
  code: ({ children, className }) => (
    <code className={`${className ?? ""} rounded bg-muted px-1 py-0.5 font-mono text-[0.85em] [overflow-wrap:anywhere]`}>{children}</code>
  ),
  table: ({ children }) => (
    <div className="my-2 max-w-full overflow-x-auto">
      <table className="text-sm [&_td]:border [&_td]:px-2 [&_td]:py-1 [&_th]:border [&_th]:px-2 [&_th]:py-1">{children}</table>
    </div>
  ),
};

/**
 * An assistant's message as Markdown, safely: raw HTML in it is dropped (never rendered), links
 * open in a new tab without access to this page, and only http, https and mailto addresses link.
 * Headings render as bold paragraphs, so a message cannot break the page's heading outline.
 */
export function Markdown({ children }: { children: string }) {
  return (
    <ReactMarkdown remarkPlugins={[htmlAsText]} urlTransform={safeUrl} components={components}>
      {children}
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
