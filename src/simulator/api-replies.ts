import { ApiError, type Reply } from "./http-util.ts";
import { BadPageRequest, pageRequest } from "./paging.ts";

/**
 * The answers every Palette route module shares, so each one says a 404, a 400 or a page the
 * same way Palette does: `{code, message}` errors and `limit`/`continue` paging whose bad values
 * are a 400 `InvalidPageRequest`, not a crash.
 */

export const ok = (body: unknown, status = 200): Reply => ({ status, body });

export function notFound(what: string): ApiError {
  return new ApiError(404, "ResourceNotFound", `${what} not found`);
}

export function badRequest(message: string, code = "InvalidRequest"): ApiError {
  return new ApiError(400, code, message);
}

export function page(query: URLSearchParams) {
  try {
    return pageRequest(query);
  } catch (error) {
    if (error instanceof BadPageRequest) throw badRequest(error.message, "InvalidPageRequest");
    throw error;
  }
}
