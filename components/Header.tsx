import Link from "next/link";

export interface HeaderProfile {
  name: string;
  email: string;
  role: string;
  tenantName: string;
}

export function Header({ profile, signOutAction }: { profile: HeaderProfile; signOutAction: () => Promise<void> }) {
  return (
    <header className="topbar">
      <Link href="/chat" className="brand">
        ⚓ Harbor
      </Link>
      <nav className="topnav">
        <Link href="/chat">Chat</Link>
        <Link href="/connections">Connections</Link>
        {profile.role === "approver" || profile.role === "admin" ? <Link href="/approvals">Approvals</Link> : null}
        {profile.role === "admin" ? <Link href="/console">Console</Link> : null}
      </nav>
      <div className="who" data-testid="who">
        <span className="who-name">{profile.name}</span>
        <span className="muted">{profile.email}</span>
        <span className={`role role-${profile.role}`} data-testid="role">
          {profile.role}
        </span>
        <span className="muted">· {profile.tenantName}</span>
        <form action={signOutAction}>
          <button type="submit" className="button ghost small">
            Sign out
          </button>
        </form>
      </div>
    </header>
  );
}
