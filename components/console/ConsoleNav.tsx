"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { cn } from "@/components/ui/cn";

/** The console's pages; `members` marks the one a member may open too (their own model budget). */
const PAGES = [
  { href: "/console", label: "Runs", members: false },
  { href: "/console/budgets", label: "Model budgets", members: true },
  { href: "/console/webhooks", label: "Webhooks", members: false },
  { href: "/console/mcp", label: "MCP servers", members: false },
  { href: "/console/retention", label: "Data retention", members: false },
  { href: "/console/audit", label: "Export audit", members: false },
] as const;

/** Whether `pathname` is the page `href` (a run's own page belongs to Runs). */
function isCurrent(pathname: string, href: string): boolean {
  if (href === "/console") return pathname === "/console" || pathname.startsWith("/console/runs/");
  return pathname === href || pathname.startsWith(`${href}/`);
}

/**
 * One row of links across every console page, the same everywhere. It lists only the pages the
 * viewer may open: all of them for admins, their model budget for members.
 */
export function ConsoleNav({ admin }: { admin: boolean }) {
  const pathname = usePathname();
  const pages = PAGES.filter((p) => admin || p.members);
  const { row, more } = useSidewaysRow(pathname);
  return (
    <nav aria-label="Console" className="relative shrink-0 border-b bg-background" data-testid="console-nav">
      {/* A phone scrolls the row sideways rather than wrapping it into a block. */}
      <ul ref={row} className="flex gap-1 overflow-x-auto px-2 sm:px-3 [scrollbar-width:none]">
        {pages.map((page) => {
          const current = isCurrent(pathname, page.href);
          return (
            <li key={page.href} className="shrink-0">
              <Link
                href={page.href}
                aria-current={current ? "page" : undefined}
                className={cn(
                  "inline-flex h-10 items-center border-b-2 px-2.5 text-sm whitespace-nowrap outline-none focus-visible:ring-2 focus-visible:ring-ring",
                  current
                    ? "border-primary font-medium text-foreground"
                    : "border-transparent text-muted-foreground hover:border-border hover:text-foreground",
                )}
              >
                {page.label}
              </Link>
            </li>
          );
        })}
      </ul>
      {/* Without a scrollbar, a fading edge is what tells a phone that more pages lie to the right. */}
      <span
        aria-hidden
        data-testid="console-nav-more"
        className={cn(
          "pointer-events-none absolute inset-y-0 right-0 w-10 bg-gradient-to-l from-background to-transparent transition-opacity",
          more ? "opacity-100" : "opacity-0",
        )}
      />
    </nav>
  );
}

/**
 * The row's element and whether links are hidden past its right edge. The current page's link is
 * scrolled into view, so a phone opened on "Export audit" does not show it cut off.
 */
function useSidewaysRow(pathname: string) {
  const row = useRef<HTMLUListElement>(null);
  const [more, setMore] = useState(false);
  useEffect(() => {
    const list = row.current;
    if (!list) return;
    // More than the row's own end padding left to scroll: a link (or part of one) is out of sight.
    const measure = () => setMore(list.scrollWidth - list.scrollLeft - list.clientWidth > 12);
    list.querySelector<HTMLElement>('[aria-current="page"]')?.scrollIntoView({ block: "nearest", inline: "nearest" });
    measure();
    const resized = new ResizeObserver(measure);
    resized.observe(list);
    list.addEventListener("scroll", measure, { passive: true });
    return () => {
      resized.disconnect();
      list.removeEventListener("scroll", measure);
    };
  }, [pathname]);
  return { row, more };
}
