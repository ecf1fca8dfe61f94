package quantity_test

import (
	"fmt"

	"github.com/writepath/writepath/internal/quantity"
)

func ExampleParse() {
	for _, s := range []string{"1.5Gi", "1000m", "+1", "0.1n", "8Ei", "1x"} {
		q, err := quantity.Parse(s)
		if err != nil {
			fmt.Println(s, err)
			continue
		}
		fmt.Println(s, q.String(), q.Format(), q.Decimal())
	}
	// Output:
	// 1.5Gi 1536Mi BinarySI 1610612736
	// 1000m 1 DecimalSI 1
	// +1 +1 DecimalSI 1
	// 0.1n 1n DecimalSI 0.000000001
	// 8Ei 9223372036854775807 BinarySI 9223372036854775807
	// 1x quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
}

func ExampleQuantity_Cmp() {
	a, b := quantity.MustParse("1Ki"), quantity.MustParse("1024")
	fmt.Println(a.Cmp(b), a.Equal(b), quantity.MustParse("100m").Cmp(quantity.MustParse("0.2")))
	// Output: 0 true -1
}

func ExampleQuantity_RoundUp() {
	q, exact := quantity.MustParse("1.0001").RoundUp(-3)
	fmt.Println(q, exact)
	// Output: 1001m false
}

func ExampleQuantity_Add() {
	sum, err := quantity.MustParse("1").Add(quantity.MustParse("500m"))
	fmt.Println(sum, sum.Decimal(), err)
	// Output: 1500m 1.5 <nil>
}
