import { createContext, useContext } from 'react';

/** The signed-in operator as GET /admin-api/me answers: their role and the routes it may call. */
export interface Operator {
  subject: string;
  role: string;
  allowedRoutes: readonly string[];
}

export const OperatorContext = createContext<Operator | null>(null);

/**
 * Whether the signed-in operator may call a route, written as the API document names it
 * (`POST /admin-api/jobs/{jobId}/cancel`): the pages show only the actions the role allows
 * (docs/operator-roles.md). The gateway refuses the others anyway; this keeps them out of sight.
 */
export function useMay(): (route: string) => boolean {
  const operator = useContext(OperatorContext);
  return (route) => operator?.allowedRoutes.includes(route.replace(/\{(\w+)\}/g, ':$1')) ?? false;
}
