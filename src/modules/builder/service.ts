/** GET /builder/presets/{preset_id}: one preset in full, as served (top level AND), or NotFound (404). */
import { NotFound } from '../../runs/errors'
import { servedPreset } from '../../strategies/describe'
import type { Preset } from '../../strategies/presets'

export function presetById(id: string): Preset {
  const preset = servedPreset(id)
  if (!preset) throw new NotFound(`Preset '${id}' not found`)
  return preset
}
