/**
 * A set of strings kept as 64-bit hashes in one typed array (16 bytes a slot at most half full):
 * a million keys in about 32 MB rather than the ~100 MB of a Set of strings. Two different keys
 * share a hash with a probability of about n² / 2⁶⁵ (3 × 10⁻⁸ for a million keys).
 */
export class KeySet {
  private slots = new Uint32Array(2 * 1024);
  private size = 0;

  /** Adds the key; false when it was there already. */
  add(key: string): boolean {
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
    h1 >>>= 0;
    h2 = (h2 | 1) >>> 0; // never 0: an empty slot
    if (this.has(h1, h2)) return false;
    if ((this.size + 1) * 2 > this.slots.length / 2) this.grow();
    this.put(h1, h2);
    this.size++;
    return true;
  }

  private has(h1: number, h2: number): boolean {
    const mask = this.slots.length / 2 - 1;
    for (let i = h1 & mask; ; i = (i + 1) & mask) {
      const b = this.slots[2 * i + 1];
      if (b === 0) return false;
      if (b === h2 && this.slots[2 * i] === h1) return true;
    }
  }

  private put(h1: number, h2: number): void {
    const mask = this.slots.length / 2 - 1;
    let i = h1 & mask;
    while (this.slots[2 * i + 1] !== 0) i = (i + 1) & mask;
    this.slots[2 * i] = h1;
    this.slots[2 * i + 1] = h2;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) if (old[i + 1] !== 0) this.put(old[i], old[i + 1]);
  }
}
