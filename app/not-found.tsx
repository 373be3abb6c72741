import Link from "next/link";

export default function NotFound() {
  return (
    <main className="centered">
      <div className="card narrow">
        <h1>Not found</h1>
        <p className="muted">There is nothing here for you — it may not exist, or it belongs to someone else.</p>
        <Link className="button" href="/chat">
          Back to your conversations
        </Link>
      </div>
    </main>
  );
}
