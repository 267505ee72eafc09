import { standInBase } from "./tests/_stand_in_bases.ts";
for (const tag of Deno.args) console.log(tag, await standInBase(tag));
