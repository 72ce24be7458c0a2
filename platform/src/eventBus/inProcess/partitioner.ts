// Key → partition: Kafka's default partitioner, so partition numbers match a Kafka cluster.

/**
 * Kafka's murmur2 (the Java client's and kafkajs's DefaultPartitioner).
 *
 * @example murmur2(Buffer.from('project-42'))
 */
export function murmur2(data: Buffer): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const tail = length & ~3;
  for (let i = 0; i < tail; i += 4) {
    let k = data.readInt32LE(i);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const rest = length % 4;
  if (rest === 3) h ^= data.readUInt8(tail + 2) << 16;
  if (rest >= 2) h ^= data.readUInt8(tail + 1) << 8;
  if (rest >= 1) h = Math.imul(h ^ data.readUInt8(tail), m);
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h;
}

/**
 * The partition of a key, as Kafka's default partitioner computes it.
 *
 * @example partitionForKey('project-42', 3) // always the same number in [0, 3)
 */
export function partitionForKey(key: string, partitions: number): number {
  return (murmur2(Buffer.from(key, 'utf8')) & 0x7fffffff) % partitions;
}
