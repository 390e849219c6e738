/**
 * This tab's executor choice (capabilities and tool consent), shared by the
 * role panel's switches and the plan's "turn it on here" buttons (issue
 * 43), so that neither writes back a stale copy of the other's change. The
 * consent is what this browser remembers; the runtime gets every change.
 */
import type { Capability, PeerRuntime, RoleActivity, ToolConsent } from '../../runtime/types'
import { saveCapabilities } from './capabilities'
import {
  loadToolConsent,
  saveToolConsent,
  switchCapability,
  type ExecutorChoice,
} from './tool-consent'

// raw: the runtime posts it to its worker, and a state proxy cannot be cloned
let consent = $state.raw<ToolConsent>(loadToolConsent())

export function toolConsent(): ToolConsent {
  return consent
}

/** Remembers a new choice and hands it to the runtime at once. */
export function applyChoice(runtime: PeerRuntime, next: ExecutorChoice): void {
  consent = next.consent
  saveToolConsent(next.consent)
  saveCapabilities(next.chosen)
  runtime.setTools(next.consent)
  runtime.setCapabilities(next.chosen)
}

/** What the person chose so far: the runtime's report, else what it advertises. */
export function chosenOf(activity: RoleActivity): Capability[] {
  return activity.tools?.chosen ?? activity.capabilities
}

/** One click: this executor offers `capability` (with a real model, that consents to its tool). */
export function turnOn(runtime: PeerRuntime, activity: RoleActivity, capability: Capability): void {
  const choice = { chosen: chosenOf(activity), consent }
  applyChoice(runtime, switchCapability(choice, capability, true, activity.offline))
}
