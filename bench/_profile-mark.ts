/**
 * A named spin before a profile's timed requests: `bench/_cpuprofile-top.ts --after
 * profileMark` keeps only the samples after it (bench/_profile-warm.ts,
 * bench/_tree-request-profile.ts).
 */
export function profileMark(): number {
  const until = performance.now() + 20
  let x = 0
  while (performance.now() < until) x++
  return x
}
