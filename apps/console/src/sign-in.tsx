import { useState } from 'react';
import { saveToken } from './api/token';

/** Paste an operator's bearer token; it stays in this tab's session storage. */
export function SignIn({ onSignedIn, problem }: { onSignedIn: () => void; problem?: string }) {
  const [token, setToken] = useState('');
  return (
    <main className="sign-in">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          saveToken(token);
          onSignedIn();
        }}
      >
        <h1>Atelier console</h1>
        <p className="muted">
          Paste an operator's bearer token (a JWT with the role viewer, operator, admin or super_admin). It is kept in this tab only.
        </p>
        {problem && (
          <div className="state error" role="alert">
            {problem}
          </div>
        )}
        <textarea aria-label="admin token" rows={5} value={token} onChange={(e) => setToken(e.target.value)} placeholder="eyJhbGciOi…" />
        <button type="submit" disabled={token.trim() === ''}>
          Sign in
        </button>
      </form>
    </main>
  );
}
