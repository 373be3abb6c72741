"use client";

import { AnchorIcon, GaugeIcon, InboxIcon, LogOutIcon, MenuIcon, MessageSquareIcon, PlugIcon, type LucideIcon } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import { PendingBadge, usePendingCount } from "@/components/approvals/PendingCount";
import { Badge, type BadgeTone } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { cn } from "@/components/ui/cn";
import { Sheet, SheetContent, SheetTrigger } from "@/components/ui/Sheet";

export interface HeaderProfile {
  id: string;
  name: string;
  email: string;
  role: string;
  tenantName: string;
}

interface NavItem {
  href: string;
  label: string;
  icon: LucideIcon;
}

const ROLE_TONES: Record<string, BadgeTone> = { member: "neutral", approver: "info", admin: "violet" };

function navFor(role: string): NavItem[] {
  return [
    { href: "/chat", label: "Chat", icon: MessageSquareIcon },
    { href: "/connections", label: "Connections", icon: PlugIcon },
    // Everyone: approvers decide there, members follow (and may withdraw) their own requests.
    { href: "/approvals", label: "Approvals", icon: InboxIcon },
    ...(role === "admin" ? [{ href: "/console", label: "Console", icon: GaugeIcon }] : []),
  ];
}

/**
 * The app's header: the sections this role may open, who is signed in, and Sign out. On phones
 * the sections and the account fold into a menu (a drawer) behind one button.
 */
export function Header({ profile, signOutAction }: { profile: HeaderProfile; signOutAction: () => Promise<void> }) {
  const pathname = usePathname();
  const [menuOpen, setMenuOpen] = useState(false);
  const items = navFor(profile.role);
  const current = (href: string) => pathname === href || pathname.startsWith(`${href}/`);
  // Approvers see what waits on them next to "Approvals", live.
  const waiting = usePendingCount({
    viewerId: profile.id,
    viewerIsAdmin: profile.role === "admin",
    enabled: profile.role === "approver" || profile.role === "admin",
    inInbox: current("/approvals"),
  });
  const badge = (href: string, className?: string) =>
    href === "/approvals" ? <PendingBadge count={waiting} className={className} /> : null;
  const signOut = (
    <form action={signOutAction}>
      <Button type="submit" variant="ghost" size="sm" className="w-full justify-start md:w-auto">
        <LogOutIcon aria-hidden="true" />
        Sign out
      </Button>
    </form>
  );
  return (
    <header className="sticky top-0 z-30 flex h-14 shrink-0 items-center gap-2 border-b bg-background/90 px-3 backdrop-blur sm:px-4">
      <a
        href="#main"
        className="sr-only rounded-md bg-primary px-3 py-2 text-sm font-medium text-primary-foreground focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50"
      >
        Skip to content
      </a>
      <Link href="/chat" className="flex items-center gap-2 rounded-md px-1 text-base font-semibold tracking-tight no-underline">
        <span className="grid size-7 place-items-center rounded-lg bg-primary text-primary-foreground">
          <AnchorIcon className="size-4" aria-hidden="true" />
        </span>
        Harbor
      </Link>
      <nav aria-label="Main" className="ml-4 hidden items-center gap-1 md:flex">
        {items.map(({ href, label, icon: Icon }) => (
          <Link
            key={href}
            href={href}
            aria-current={current(href) ? "page" : undefined}
            className={cn(
              "flex h-8 items-center gap-1.5 rounded-md px-2.5 text-sm font-medium text-muted-foreground no-underline transition-colors hover:bg-accent hover:text-foreground",
              current(href) && "bg-accent text-foreground",
            )}
          >
            <Icon className="size-4" aria-hidden="true" />
            {label}
            {badge(href)}
          </Link>
        ))}
      </nav>
      <div className="ml-auto hidden min-w-0 items-center gap-3 md:flex" data-testid="who">
        <div className="min-w-0 text-right leading-tight">
          <div className="truncate text-sm font-medium">{profile.name}</div>
          <div className="truncate text-xs text-muted-foreground">
            {profile.email} · {profile.tenantName}
          </div>
        </div>
        <Badge tone={ROLE_TONES[profile.role] ?? "neutral"} data-testid="role">
          {profile.role}
        </Badge>
        {signOut}
      </div>
      <Sheet open={menuOpen} onOpenChange={setMenuOpen}>
        <SheetTrigger asChild>
          <Button
            variant="ghost"
            size="icon"
            className="relative ml-auto md:hidden"
            aria-label={waiting > 0 ? `Open menu (${waiting} waiting for you)` : "Open menu"}
          >
            <MenuIcon className="!size-5" aria-hidden="true" />
            {waiting > 0 ? (
              <span className="absolute top-1 right-1 size-2.5 rounded-full bg-primary ring-2 ring-background" aria-hidden="true" />
            ) : null}
          </Button>
        </SheetTrigger>
        <SheetContent side="right" title="Menu">
          <nav aria-label="Main" className="grid gap-1 p-3">
            {items.map(({ href, label, icon: Icon }) => (
              <Link
                key={href}
                href={href}
                onClick={() => setMenuOpen(false)}
                aria-current={current(href) ? "page" : undefined}
                className={cn(
                  "flex h-11 items-center gap-3 rounded-lg px-3 text-[0.9375rem] font-medium no-underline hover:bg-accent",
                  current(href) && "bg-accent",
                )}
              >
                <Icon className="size-5 text-muted-foreground" aria-hidden="true" />
                {label}
                {badge(href, "ml-auto")}
              </Link>
            ))}
          </nav>
          <div className="mx-3 grid gap-3 border-t px-3 pt-4 pb-3">
            <div className="min-w-0">
              <div className="flex items-center gap-2">
                <span className="truncate font-medium">{profile.name}</span>
                <Badge tone={ROLE_TONES[profile.role] ?? "neutral"}>{profile.role}</Badge>
              </div>
              <div className="truncate text-sm text-muted-foreground">{profile.email}</div>
              <div className="truncate text-sm text-muted-foreground">{profile.tenantName}</div>
            </div>
          </div>
          <div className="px-3">{signOut}</div>
        </SheetContent>
      </Sheet>
    </header>
  );
}

/** The header of a page a signed-out visitor may see (not found): the brand and Sign in. */
export function PublicHeader() {
  return (
    <header className="sticky top-0 z-30 flex h-14 shrink-0 items-center gap-2 border-b bg-background/90 px-3 backdrop-blur sm:px-4">
      <a
        href="#main"
        className="sr-only rounded-md bg-primary px-3 py-2 text-sm font-medium text-primary-foreground focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50"
      >
        Skip to content
      </a>
      <Link href="/" className="flex items-center gap-2 rounded-md px-1 text-base font-semibold tracking-tight no-underline">
        <span className="grid size-7 place-items-center rounded-lg bg-primary text-primary-foreground">
          <AnchorIcon className="size-4" aria-hidden="true" />
        </span>
        Harbor
      </Link>
      <Button asChild variant="ghost" size="sm" className="ml-auto no-underline">
        <Link href="/signin">Sign in</Link>
      </Button>
    </header>
  );
}
