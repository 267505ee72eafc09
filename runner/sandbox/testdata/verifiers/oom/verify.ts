// Holds ever more memory: the verifier's 256 MB limit must kill it.
const held: Uint8Array[] = [];
for (let i = 0; i < 64; i++) held.push(new Uint8Array(16 << 20).fill(1));
console.log(JSON.stringify({ resolved: true, held_mb: held.length * 16 }));
