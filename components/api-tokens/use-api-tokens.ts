"use client";

import { useCallback, useEffect, useState } from "react";
import { API_TOKEN_ROUTES, type ApiToken, type ApiTokenCreated } from "@/lib/contracts/api-token";
import { callApi, post, type ApiResult } from "@/components/accounts/account-api";

/** A person's tokens: the list, and making and revoking one (each answer updates the list). */
export function useApiTokens(): {
  tokens: ApiToken[] | null;
  error: string | null;
  create(name: string): Promise<ApiResult<ApiTokenCreated>>;
  revoke(id: string): Promise<ApiResult<{ token: ApiToken }>>;
} {
  const [tokens, setTokens] = useState<ApiToken[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    void callApi<{ tokens: ApiToken[] }>(API_TOKEN_ROUTES.list).then((result) => {
      if (!current) return;
      if (result.ok) setTokens(result.data.tokens);
      else setError(result.message);
    });
    return () => {
      current = false;
    };
  }, []);
  const create = useCallback(async (name: string) => {
    const result = await post<ApiTokenCreated>(API_TOKEN_ROUTES.list, { name, scope: "a2a" });
    if (result.ok) setTokens((list) => [result.data.token, ...(list ?? [])]);
    return result;
  }, []);
  const revoke = useCallback(async (id: string) => {
    const result = await post<{ token: ApiToken }>(API_TOKEN_ROUTES.revoke(id));
    if (result.ok) setTokens((list) => (list ?? []).map((t) => (t.id === id ? result.data.token : t)));
    return result;
  }, []);
  return { tokens, error, create, revoke };
}
