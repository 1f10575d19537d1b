import { mfi, obv, volRatio } from '../volume'
import { volumeProfilePoc } from '../volume-profile'
import { define, int, num } from './spec'

export const volumeDef = define({
  id: 'volume',
  name: 'Volume Ratio',
  params: { period: int(20, 1, 500, 'bars in the mean volume (this one included)') },
  fields: [num('vol_ratio', 'volume / mean volume of the last period bars (1 = average)')],
  warmupBars: (p) => p.period - 1,
  run(b, p, col) {
    volRatio(b.v, p.period, col('vol_ratio'), b.n)
  },
})

export const obvDef = define({
  id: 'obv',
  name: 'On-Balance Volume',
  params: {},
  fields: [num('obv', 'running volume, added on up closes and subtracted on down closes, from the first bar')],
  warmupBars: () => 0,
  run(b, _p, col) {
    obv(b.c, b.v, col('obv'), b.n)
  },
})

export const mfiDef = define({
  id: 'mfi',
  name: 'Money Flow Index',
  params: { period: int(14, 2, 500, 'bars of money flow') },
  fields: [num('mfi', '100 × rising typical-price money flow / total money flow, 0..100')],
  warmupBars: (p) => p.period,
  run(b, p, col) {
    mfi(b.h, b.l, b.c, b.v, p.period, col('mfi'), b.n)
  },
})

export const volumeProfileDef = define({
  id: 'volume_profile',
  name: 'Volume Profile',
  params: {
    period: int(168, 2, 2000, 'bars before this one in the profile'),
    bins: int(20, 2, 200, 'equal-width price bins between the lowest and highest close of those bars'),
  },
  fields: [
    num('vp_poc', 'point of control: middle of the bin holding the most volume of the period bars before this one'),
    num('vp_dev', 'distance of the close from vp_poc, percent of vp_poc: (close − vp_poc) / vp_poc × 100'),
  ],
  warmupBars: (p) => p.period,
  run(b, p, col) {
    const poc = col('vp_poc')
    volumeProfilePoc(b.c, b.v, p.period, p.bins, poc, b.n)
    const dev = col('vp_dev')
    for (let i = 0; i < b.n; i++) dev[i] = ((b.c[i] - poc[i]) / poc[i]) * 100
  },
})
