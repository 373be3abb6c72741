/** Shown while a conversation loads on the server. */
export default function LoadingConversation() {
  return (
    <div className="chat-layout" aria-busy="true" aria-label="Loading the conversation">
      <aside className="sidebar">
        <ul className="thread-list">
          {[0, 1, 2].map((i) => (
            <li key={i} className="skeleton" />
          ))}
        </ul>
      </aside>
      <section className="conversation">
        <div className="messages">
          <div className="skeleton bubble-skeleton right" />
          <div className="skeleton bubble-skeleton" />
        </div>
      </section>
    </div>
  );
}
