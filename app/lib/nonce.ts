import { createContext, useContext } from "react";

/** The CSP nonce of this response: set on the server, empty in the browser (which hides it). */
export const NonceContext = createContext("");

export function useNonce(): string {
  return useContext(NonceContext);
}
