/** The operator's admin bearer token, for this browser tab only (session storage, never a cookie). */
const KEY = 'atelier.console.token';

export const readToken = (): string | null => sessionStorage.getItem(KEY);
export const saveToken = (token: string): void => sessionStorage.setItem(KEY, token.trim());
export const forgetToken = (): void => sessionStorage.removeItem(KEY);
