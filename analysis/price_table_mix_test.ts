import { equal } from "node:assert/strict";
import { priceTableMix } from "./price_table_mix.ts";

Deno.test("priceTableMix() is silent for one table and names every table with its rows otherwise", () => {
  equal(priceTableMix([]), null);
  equal(priceTableMix([{ price_table_id: "p" }, { price_table_id: "p" }]), null);
  equal(
    priceTableMix([{ price_table_id: "z" }, { price_table_id: "a" }, { price_table_id: "z" }]),
    'the rows name 2 price tables ("a" 1 row, "z" 2 rows); costs from different tables are not comparable',
  );
});
