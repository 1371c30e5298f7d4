import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiFailure, api, unwrap } from './api/client';
import { forgetToken, readToken, saveToken } from './api/token';
import { OperatorContext } from './api/operator';
import { AuditPage } from './pages/audit-page';
import { CatalogPage } from './pages/catalog-page';
import { DeadLettersPage } from './pages/dead-letters-page';
import { JobPage } from './pages/job-page';
import { JobsPage } from './pages/jobs-page';
import { OverviewPage } from './pages/overview-page';
import { SpendPage } from './pages/spend-page';
import { WorkersPage } from './pages/workers-page';
import { SignIn } from './sign-in';
import { ErrorState, Loading } from './ui/states';

const NAV = [
  ['#/', 'Overview'],
  ['#/jobs', 'Jobs'],
  ['#/dead-letters', 'Dead letters'],
  ['#/catalog', 'Catalog'],
  ['#/spend', 'Spend'],
  ['#/workers', 'Workers'],
  ['#/audit', 'Audit'],
] as const;

/** Pages a role may not read are left out of the navigation (the gateway refuses their routes anyway). */
const NAV_ROUTES: Partial<Record<(typeof NAV)[number][0], string>> = { '#/audit': 'GET /admin-api/audit' };

function useHash(): string {
  const [hash, setHash] = useState(window.location.hash || '#/');
  useEffect(() => {
    const update = () => setHash(window.location.hash || '#/');
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return hash;
}

function Page({ hash }: { hash: string }) {
  const job = /^#\/jobs\/([0-9a-f-]{36})$/.exec(hash);
  if (job) return <JobPage jobId={job[1]!} />;
  switch (hash) {
    case '#/jobs':
      return <JobsPage />;
    case '#/dead-letters':
      return <DeadLettersPage />;
    case '#/catalog':
      return <CatalogPage />;
    case '#/spend':
      return <SpendPage />;
    case '#/workers':
      return <WorkersPage />;
    case '#/audit':
      return <AuditPage />;
    default:
      return <OverviewPage />;
  }
}

/** Sign-in, then the pages with the actions the operator's role allows; a token the gateway refuses (401, or 403 without an operator role) signs out. */
export function App() {
  const client = useQueryClient();
  const hash = useHash();
  const [token, setToken] = useState(() => {
    // The local platform's sign-in link carries the token in the fragment: take it, then hide it.
    const given = /[#&]token=([^&]+)/.exec(window.location.hash);
    if (given) {
      saveToken(decodeURIComponent(given[1]!));
      window.history.replaceState(null, '', `${window.location.pathname}#/`);
    }
    return readToken();
  });
  const check = useQuery({
    queryKey: ['session', token],
    enabled: token !== null,
    retry: false,
    queryFn: async () => unwrap(await api.GET('/admin-api/me')),
  });
  const signOut = () => {
    forgetToken();
    client.clear();
    setToken(null);
  };
  const refused = check.error instanceof ApiFailure && (check.error.status === 401 || check.error.status === 403) ? check.error : undefined;

  if (token === null || refused) {
    if (refused && token !== null) forgetToken();
    return (
      <SignIn
        problem={refused ? `The gateway refused this token (${refused.status}): ${refused.message}` : undefined}
        onSignedIn={() => {
          client.clear();
          setToken(readToken());
        }}
      />
    );
  }
  return (
    <div className="shell">
      <nav className="sidebar">
        <div className="brand">Atelier</div>
        {NAV.filter(([href]) => {
          const route = NAV_ROUTES[href];
          return route === undefined || (check.data?.allowedRoutes.includes(route) ?? false);
        }).map(([href, label]) => (
          <a key={href} href={href} className={hash === href || (href !== '#/' && hash.startsWith(href)) ? 'active' : ''}>
            {label}
          </a>
        ))}
        {check.data && (
          <div className="whoami muted" data-role={check.data.role}>
            {check.data.subject} · {check.data.role}
          </div>
        )}
        <button className="sign-out" onClick={signOut}>
          Sign out
        </button>
      </nav>
      <main className="content">
        {check.isPending ? (
          <Loading what="the session" />
        ) : check.isError ? (
          <ErrorState error={check.error} />
        ) : (
          <OperatorContext.Provider value={check.data}>
            <Page hash={hash} />
          </OperatorContext.Provider>
        )}
      </main>
    </div>
  );
}
