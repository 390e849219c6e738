/**
 * Real providers on the Vercel AI SDK (ai v6): Anthropic, OpenAI and any
 * OpenAI-compatible server. Only fetch is used, so this runs unchanged in a
 * Web Worker and in Node.
 *
 * Which SDK call, and why: generateText with `output: Output.object(...)`
 * ('native' mode) or plain generateText ('text' mode).
 * - generateObject is deprecated in ai v6 in favour of generateText + output.
 * - Output.object makes each provider use its own structured-output wire
 *   form: Anthropic `output_config.format` (json_schema) on models that
 *   support it, else a forced `json` tool; OpenAI Chat Completions
 *   `response_format: json_schema`. The schema we pass is a jsonSchema()
 *   without a validator, so the SDK only parses JSON and leaves judging to
 *   our zod schema (run-task.ts), which feeds precise errors back.
 * - Streaming (streamText, stream-call.ts) when the caller wants the text as
 *   it arrives (request.onText: execute and roll-up calls in a tab): the
 *   same request with `stream: true`, the whole reply then judged as an
 *   unstreamed one is (the JSON object extracted from the text, in either
 *   mode). Other calls stay unstreamed: one JSON response is simpler.
 * - request.onSend is told the system prompt exactly as sent (text mode adds
 *   the schema to it), so the call inspector shows what the provider got.
 * - maxRetries: 0: run-task.ts owns retries (with the error fed back), so
 *   the SDK's own retries would multiply attempts and hide errors.
 *
 * Robustness for local models: many ignore response_format and tool
 * calling, and some servers reject json_object outright (LM Studio accepts
 * only json_schema or text). So OpenAI-compatible servers default to 'text'
 * mode: the schema goes into the system prompt and we extract the first
 * JSON object from the reply (json-extract.ts). In 'native' mode, a reply
 * that is not bare JSON is rescued the same way, and a 400 that blames the
 * structured-output parameters switches this provider to 'text' for good.
 *
 * Tools (issue 24): an execute call with tools runs the tool loop
 * (tool-loop.ts). run_javascript and the tools of a person's MCP server
 * (toolbox.ts, issue 57) are function tools every provider can carry
 * (Anthropic tool_use, Chat Completions `tools`). Web search is the
 * provider's own server tool: Anthropic's web_search_20250305 on the
 * Messages API; OpenAI's web_search exists only on the Responses API, so an
 * OpenAI call that may search goes there (every other call stays on Chat
 * Completions). A 400 that blames tools turns tools off for good on this
 * provider, and the call is answered text-only; the executor then stops
 * advertising what it cannot do (src/runtime/tools.ts).
 */
import { createAnthropic } from '@ai-sdk/anthropic'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import {
  generateText,
  jsonSchema,
  NoObjectGeneratedError,
  Output,
  type LanguageModel,
  type Tool,
} from 'ai'
import { isAbortError, LlmAuthError, toLlmError } from './errors'
import { extractJsonObject } from './json-extract'
import { finishAndReasoning } from './reply-repair'
import { estimateTokens } from './tokens'
import { streamReply } from './stream-call'
import { runToolLoop } from './tool-loop'
import { MAX_WEB_SEARCHES, NO_TOOL_SUPPORT, type ToolSupport } from './tools'
import type { GenerateRequest, GenerateResult, LlmProvider, ProviderInit } from './provider'
import type { ModelConfig } from './types'

export type StructuredOutputMode = 'native' | 'text'

/** Where OpenAI-compatible requests go when no base URL is set: Ollama, the most common local server. */
export const DEFAULT_OPENAI_COMPATIBLE_BASE_URL = 'http://localhost:11434/v1'

/** A 400 whose message blames these is the server not supporting structured output. */
const STRUCTURED_OUTPUT_REJECTED =
  /response_format|json_schema|json_object|output_config|output_format|tool_choice|structured/i

/**
 * A 400 whose message blames these, on a request that carried tools, is the
 * server or model not doing tool calls (Ollama: "does not support tools";
 * vLLM: "tool_choice ... requires --enable-auto-tool-choice").
 */
const TOOLS_REJECTED = /\btools?\b|tool_choice|tool_use|function[ _]call|web_search/i

/** The provider's server-side search: the model to ask and the tool to give it. */
interface SearchKit {
  model: LanguageModel
  tool: Tool
}

function textModeSystem(system: string, schema: Record<string, unknown>): string {
  return `${system}\nReply with one JSON object and nothing else, matching this JSON Schema:\n${JSON.stringify(schema)}`
}

type RealProviderId = Exclude<ModelConfig['provider'], 'offline'>

class AiSdkProvider implements LlmProvider {
  readonly offline = false
  private mode: StructuredOutputMode
  private tools: ToolSupport

  constructor(
    readonly id: RealProviderId,
    readonly model: string,
    readonly label: string,
    private readonly languageModel: LanguageModel,
    mode: StructuredOutputMode,
    private readonly missingKey: boolean,
    /** server-side web search, for providers that have one */
    private readonly search?: () => SearchKit,
  ) {
    this.mode = mode
    this.tools = { code: true, search: search !== undefined }
  }

  toolSupport(): ToolSupport {
    return { ...this.tools }
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    if (this.missingKey) throw new LlmAuthError(`no API key set for ${this.label}`)
    const tools = request.tools
    if (
      tools &&
      (tools.sandbox || tools.search || tools.toolbox) &&
      (this.tools.code || this.tools.search)
    ) {
      const offered = {
        ...(tools.sandbox && this.tools.code ? { sandbox: tools.sandbox } : {}),
        // the person's own tools (an MCP server) are function tools, as run_javascript is
        ...(tools.toolbox && this.tools.code ? { toolbox: tools.toolbox } : {}),
        search: tools.search && this.tools.search,
        ...(tools.budget ? { budget: tools.budget } : {}),
      }
      if (offered.sandbox || offered.search || offered.toolbox) {
        try {
          const kit = offered.search ? this.search?.() : undefined
          return await runToolLoop({
            model: kit?.model ?? this.languageModel,
            modelId: this.model,
            request,
            tools: offered,
            ...(kit ? { webSearch: kit.tool } : {}),
          })
        } catch (error) {
          if (isAbortError(error) || request.signal?.aborted) throw error
          if (!isToolRejection(error)) throw toLlmError(error, this.label)
          // The model or server does not do tools: answer text-only, now and from now on.
          this.tools = { ...NO_TOOL_SUPPORT }
        }
      }
    }
    const { tools: _unused, ...plain } = request
    return this.plainGenerate(plain)
  }

  private async plainGenerate(request: GenerateRequest): Promise<GenerateResult> {
    try {
      return await this.call(request, this.mode)
    } catch (error) {
      if (isAbortError(error) || request.signal?.aborted) throw error
      const llmError = toLlmError(error, this.label)
      if (this.mode === 'native' && isStructuredOutputRejection(error)) {
        // The server does not do structured output: fall back to JSON-in-text for good.
        this.mode = 'text'
        try {
          return await this.call(request, 'text')
        } catch (retryError) {
          if (isAbortError(retryError) || request.signal?.aborted) throw retryError
          throw toLlmError(retryError, this.label)
        }
      }
      throw llmError
    }
  }

  private async call(
    request: GenerateRequest,
    mode: StructuredOutputMode,
  ): Promise<GenerateResult> {
    const common = {
      model: this.languageModel,
      prompt: request.prompt,
      maxRetries: 0,
      abortSignal: request.signal,
      maxOutputTokens: request.maxOutputTokens,
    }
    const output = Output.object({
      schema: jsonSchema(request.jsonSchema),
      name: request.schemaName,
    })
    if (request.onText) {
      const system =
        mode === 'text' ? textModeSystem(request.system, request.jsonSchema) : request.system
      request.onSend?.(system)
      const reply = await streamReply(
        { ...common, system, ...(mode === 'native' ? { output } : {}) },
        request.onText,
      )
      return {
        json: extractJsonObject(reply.text),
        text: reply.text,
        inputTokens: reply.usage.inputTokens ?? estimateTokens(system + request.prompt),
        outputTokens: reply.usage.outputTokens ?? estimateTokens(reply.text),
        model: reply.modelId ?? this.model,
        finishReason: reply.finishReason,
        ...(reply.reasoningChars > 0 ? { reasoningChars: reply.reasoningChars } : {}),
      }
    }
    if (mode === 'text') {
      const system = textModeSystem(request.system, request.jsonSchema)
      request.onSend?.(system)
      const result = await generateText({ ...common, system })
      return {
        json: extractJsonObject(result.text),
        text: result.text,
        inputTokens: result.usage.inputTokens ?? estimateTokens(system + request.prompt),
        outputTokens: result.usage.outputTokens ?? estimateTokens(result.text),
        model: result.response.modelId || this.model,
        ...finishAndReasoning(result),
      }
    }
    request.onSend?.(request.system)
    try {
      const result = await generateText({ ...common, system: request.system, output })
      let json: GenerateResult['json']
      try {
        json = { ok: true, value: result.output as unknown }
      } catch {
        // No output at all (empty text, or cut off before any text).
        json = { ok: false, error: `the reply was empty (finish reason: ${result.finishReason})` }
      }
      return {
        json,
        text: result.text,
        inputTokens: result.usage.inputTokens ?? estimateTokens(request.system + request.prompt),
        outputTokens: result.usage.outputTokens ?? estimateTokens(result.text),
        model: result.response.modelId || this.model,
        ...finishAndReasoning(result),
      }
    } catch (error) {
      if (!NoObjectGeneratedError.isInstance(error)) throw error
      // The model answered, but not with bare JSON: try to find the object in its text.
      const text = error.text ?? ''
      return {
        json: extractJsonObject(text),
        text,
        inputTokens: error.usage?.inputTokens ?? estimateTokens(request.system + request.prompt),
        outputTokens: error.usage?.outputTokens ?? estimateTokens(text),
        model: error.response?.modelId || this.model,
        ...(error.finishReason ? { finishReason: error.finishReason } : {}),
      }
    }
  }
}

function isToolRejection(error: unknown): boolean {
  const e = error as { name?: string; statusCode?: number; responseBody?: string; message?: string }
  return (
    e?.name === 'AI_APICallError' &&
    (e.statusCode === 400 || e.statusCode === 404 || e.statusCode === 422) &&
    TOOLS_REJECTED.test(`${e.responseBody ?? ''} ${e.message ?? ''}`)
  )
}

function isStructuredOutputRejection(error: unknown): boolean {
  const e = error as { name?: string; statusCode?: number; responseBody?: string; message?: string }
  return (
    e?.name === 'AI_APICallError' &&
    e.statusCode === 400 &&
    STRUCTURED_OUTPUT_REJECTED.test(`${e.responseBody ?? ''} ${e.message ?? ''}`)
  )
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

export function createAiSdkProvider(config: ModelConfig, init: ProviderInit): LlmProvider {
  const apiKey = config.apiKey?.trim() || undefined
  const baseURL = config.baseUrl?.trim() || undefined
  switch (config.provider) {
    case 'anthropic': {
      const anthropic = createAnthropic({
        apiKey: apiKey ?? 'missing',
        baseURL,
        fetch: init.fetch,
        // Anthropic refuses browser (CORS) calls without this opt-in; the key is the user's own.
        headers: { 'anthropic-dangerous-direct-browser-access': 'true', ...init.headers },
      })
      return new AiSdkProvider(
        'anthropic',
        config.model,
        `Anthropic · ${config.model}`,
        anthropic(config.model),
        init.structuredOutput ?? 'native',
        apiKey === undefined,
        () => ({
          model: anthropic(config.model),
          tool: anthropic.tools.webSearch_20250305({ maxUses: MAX_WEB_SEARCHES }),
        }),
      )
    }
    case 'openai': {
      const openai = createOpenAI({
        apiKey: apiKey ?? 'missing',
        baseURL,
        fetch: init.fetch,
        headers: init.headers,
      })
      // Chat Completions, not Responses: the format every OpenAI-compatible server and our mock speak.
      return new AiSdkProvider(
        'openai',
        config.model,
        `OpenAI · ${config.model}`,
        openai.chat(config.model),
        init.structuredOutput ?? 'native',
        apiKey === undefined,
        // web_search is a Responses API tool: calls that may search go there
        // (cast: @ai-sdk/openai pins its own copy of provider-utils, whose Tool type is the same shape)
        () => ({
          model: openai.responses(config.model),
          tool: openai.tools.webSearch({}) as unknown as Tool,
        }),
      )
    }
    case 'openai-compatible': {
      const url = baseURL ?? DEFAULT_OPENAI_COMPATIBLE_BASE_URL
      const compatible = createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: url,
        apiKey, // optional: local servers usually need none
        fetch: init.fetch,
        headers: init.headers,
        // a streamed reply's token counts (stream_options.include_usage): Ollama, vLLM, LM Studio and llama.cpp send them
        includeUsage: true,
      })
      return new AiSdkProvider(
        'openai-compatible',
        config.model,
        `${hostOf(url)} · ${config.model}`,
        compatible.chatModel(config.model),
        init.structuredOutput ?? 'text',
        false,
      )
    }
    default:
      throw new Error(`not an AI SDK provider: ${String(config.provider)}`)
  }
}
