/**
 * The badge beside a role's model (issue 43): green only once a call of
 * this model succeeded and none failed since. A model nobody called yet is
 * "not tried yet", not "working": a dead URL or a wrong key would show
 * green until the first task.
 */
import type { RoleActivity } from '../../runtime/types'
import type { Tone } from './status'

export interface ModelBadge {
  label: string
  tone: Tone
  /** a sentence for the tooltip */
  title: string
}

export function modelBadge(
  activity: Pick<RoleActivity, 'role' | 'healthy' | 'lastCallOk' | 'offline' | 'budget'>,
): ModelBadge | null {
  // an observer makes no model calls: there is nothing to vouch for
  if (activity.role === 'observer') return null
  if (!activity.healthy)
    return { label: 'failing', tone: 'bad', title: 'The last call failed; see the error above' }
  if (activity.budget?.decision.paused)
    return { label: 'paused', tone: 'busy', title: 'A spending cap was reached' }
  if (activity.lastCallOk === false)
    return { label: 'last call failed', tone: 'bad', title: 'It is tried again with the next task' }
  if (activity.lastCallOk === true)
    return { label: 'last call OK', tone: 'good', title: 'Its last call succeeded' }
  return activity.offline
    ? { label: 'ready', tone: 'idle', title: 'The built-in model runs in this tab' }
    : {
        label: 'not tried yet',
        tone: 'idle',
        title: 'No call made yet: whether the model works shows at its first task',
      }
}
