package idmint_test

import (
	"errors"
	"testing"

	idmint "github.com/idmint/idmint/go"
)

func TestParseAsSkipsTheFormatChoice(t *testing.T) {
	// 26 characters: Parse reads them as a ULID, ParseAs as the TypeID they also are.
	d, err := idmint.ParseAs("01h455vb4pex5vsknk084sn02q", "typeid", "")
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := d.Part("uuid"); d.Format != "typeid" || !ok || p.Text != "01890a5d-ac96-774b-bcce-b302099a8057" {
		t.Fatalf("%+v", d)
	}
	if _, err := idmint.ParseAs("01H455VB4PEX5VSKNK084SN02Q", "typeid", ""); !errors.Is(err, idmint.ErrInvalidId) {
		t.Fatalf("upper case is no TypeID: %v", err)
	}
	if _, err := idmint.ParseAs("123", "guid", ""); !errors.Is(err, idmint.ErrInvalidArgument) {
		t.Fatalf("unknown format: %v", err)
	}
	d, err = idmint.ParseAs("5981966696448054276", "snowflake", "redis-lua")
	if err != nil || d.Time != "2015-03-13T02:00:00.000Z" {
		t.Fatalf("%+v %v", d, err)
	}
}

func TestUUIDv7TextAndTypeIDEncode(t *testing.T) {
	u, err := idmint.ParseUUIDv7("017F22E2-79B0-7CC3-98C4-DC0C0C07398F")
	if err != nil {
		t.Fatal(err)
	}
	if u.String() != "017f22e2-79b0-7cc3-98c4-dc0c0c07398f" || u.ULID() != "01FWHE4YDGFK1SHH6W1G60EECF" || u.Time() != "2022-02-22T19:22:22.000Z" {
		t.Fatalf("%s %s %s", u, u.ULID(), u.Time())
	}
	back, err := idmint.ParseULID("01fwhe4ydgfk1shh6w1g60eecf")
	if err != nil || back != u {
		t.Fatalf("%s %v", back, err)
	}
	if _, err := idmint.ParseUUIDv7("6ba7b810-9dad-41d1-80b4-00c04fd430c8"); !errors.Is(err, idmint.ErrInvalidUuid) {
		t.Fatalf("a v4: %v", err)
	}
	if _, err := idmint.ParseULID("01ARZ3NDEKTSV4RRFFQ69G5FAV"); !errors.Is(err, idmint.ErrInvalidUuid) {
		t.Fatalf("another generator's ULID: %v", err)
	}
	max := idmint.UUID{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x70, 0, 0x80}
	if max.Time() != "9999-12-31T23:59:59.999Z" {
		t.Fatalf("capped time: %s", max.Time())
	}
	tid, err := idmint.EncodeTypeID("user", u)
	if err != nil || tid != "user_01fwhe4ydgfk1shh6w1g60eecf" {
		t.Fatalf("%s %v", tid, err)
	}
	if _, err := idmint.EncodeTypeID("User", u); !errors.Is(err, idmint.ErrInvalidArgument) {
		t.Fatalf("bad prefix: %v", err)
	}
}
