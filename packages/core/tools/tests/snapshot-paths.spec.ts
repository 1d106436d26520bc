import { describe, expect, test } from 'vitest'
import { snapshotJson } from '@dshkit/common'

// Paths are built only when something fails, from the keys of the walk: these pin their shape.
describe('snapshotJson paths and cycles', () => {
  test('a bad value deep down is named by its full path under the root', () => {
    expect(() => snapshotJson({ a: [{ b: [1, Number.NaN] }] }, 'arguments')).toThrow('arguments.a[0].b[1] is NaN, which is not JSON')
    expect(() => snapshotJson([[undefined]])).toThrow('[0][0] is undefined, which is not JSON')
    expect(() => snapshotJson({ f: () => 1 }, 'value')).toThrow('value.f is a function, which is not JSON')
    expect(() => snapshotJson({ x: { y: new Date(0) } })).toThrow('x.y is a Date object, which is not JSON')
  })

  test('a __proto__ key is named by the path of the object holding it, without the root', () => {
    const args = JSON.parse('{"a":[{"__proto__":1}]}')
    expect(() => snapshotJson(args, 'arguments')).toThrow('key "__proto__" at a[0] is not allowed')
  })

  test('a cycle is refused where it closes; the same object twice side by side is not a cycle', () => {
    const loop: Record<string, unknown> = { n: 1 }
    loop.next = { back: loop }
    expect(() => snapshotJson({ loop }, 'arguments')).toThrow('arguments.loop.next.back is a cycle')
    const shared = { k: 'v' }
    expect(snapshotJson({ a: shared, b: [shared, shared] })).toEqual({ a: { k: 'v' }, b: [{ k: 'v' }, { k: 'v' }] })
  })

  test('a getter that snapshots another value meanwhile does not disturb the outer walk', () => {
    const inner = {
      get deep() {
        return (snapshotJson({ z: 1 }, 'inner') as { z: number }).z
      },
    }
    expect(snapshotJson({ a: [inner] })).toEqual({ a: [{ deep: 1 }] })
    const bad = {
      get deep() {
        snapshotJson({ ok: true })
        return Symbol('no')
      },
    }
    expect(() => snapshotJson({ a: [bad] }, 'r')).toThrow('r.a[0].deep is a symbol, which is not JSON')
  })
})
