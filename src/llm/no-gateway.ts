/**
 * Stands in for `@ai-sdk/gateway` in the browser build (vite.config.ts
 * aliases it here). The `ai` package imports the Vercel AI Gateway for
 * string model ids ("openai/gpt-4.1"); we always hand it a provider's model
 * object (ai-sdk-provider.ts), so the gateway, and its OIDC client, would
 * be dead weight in the worker. `ai` only asks its error classes whether an
 * error is theirs: never, here.
 */
class NoGatewayError extends Error {
  static isInstance(_error: unknown): boolean {
    return false
  }
}

export const GatewayError = NoGatewayError
export const GatewayAuthenticationError = NoGatewayError

function unavailable(): never {
  throw new Error('the AI Gateway is not part of this build: pass a provider model')
}

export const createGateway = unavailable
export const gateway = Object.assign(unavailable, {
  languageModel: unavailable,
  textEmbeddingModel: unavailable,
  imageModel: unavailable,
})
