import { Elysia } from 'elysia'
import { Detail } from '../../model/shared'
import { indicatorList } from '../../strategies/describe'
import { listPresets } from '../../strategies/presets'
import { BuilderIndicatorList, Preset, PresetList, PresetParams } from './model'
import { presetById } from './service'

/** GET /builder/indicators, /builder/presets and /builder/presets/:preset_id. */
export function builderModule() {
  const indicators = indicatorList()
  const presets = listPresets()
  return new Elysia({ name: 'builder', prefix: '/builder' })
    .get('/indicators', () => indicators, {
      response: BuilderIndicatorList,
      detail: { tags: ['builder'], summary: 'Indicators for the strategy builder, as a list' },
    })
    .get('/presets', () => presets, {
      response: PresetList,
      detail: { tags: ['builder'], summary: 'Ready-made strategies to start the builder from' },
    })
    .get('/presets/:preset_id', ({ params }) => presetById(params.preset_id), {
      params: PresetParams,
      response: { 200: Preset, 404: Detail },
      detail: { tags: ['builder'], summary: 'One preset in full: indicators, entry tree and settings' },
    })
}
