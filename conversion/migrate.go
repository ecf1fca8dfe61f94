package conversion

import (
	"encoding/json"
	"sort"
)

// Migration is what a storage migration (read every object, write it back unchanged, as
// kube-storage-version-migrator does) makes of the stored objects once the CRD names a new
// storage version.
type Migration struct {
	// StorageVersion is the version everything is rewritten in.
	StorageVersion string
	// Writes are the objects written back, in input order.
	Writes []MigratedObject
	// Stranded are the objects that cannot be read (or written) because a conversion fails:
	// they stay at their old version, and so must that version stay in status.storedVersions.
	Stranded []Stranded
	// StoredVersions is what status.storedVersions can be reduced to afterwards: the storage
	// version and the versions of stranded objects, sorted.
	StoredVersions []string
}

// MigratedObject is one object rewritten by the migration.
type MigratedObject struct {
	Object string
	// From is the version it was stored at.
	From string
	// Written is the object as stored afterwards.
	Written map[string]any
	// Changes lists the fields the rewrite dropped or changed (pruning by the new storage
	// schema, conversion losses), apiVersion aside.
	Changes []Change
}

// Stranded is an object the migration cannot move.
type Stranded struct {
	Object string
	From   string
	Err    error
}

// PlanMigration predicts a storage migration of stored (objects at mixed versions, as they
// sit in etcd) to c's CRD's storage version: each object is read through the storage version
// (decoded and defaulted at its own version, converted, pruned) and written back (converted to
// storage, pruned). stored is not modified.
func (c *Converter) PlanMigration(stored []map[string]any) *Migration {
	s := c.crd.StorageVersion()
	m := &Migration{StorageVersion: s}
	versions := map[string]bool{s: true}
	for _, obj := range stored {
		name, from := objectName(obj), gvkOf(obj).Version
		read, err := c.Read(obj, s)
		var written map[string]any
		if err == nil {
			written, err = c.ToStorage(read)
		}
		if err != nil {
			m.Stranded = append(m.Stranded, Stranded{Object: name, From: from, Err: err})
			versions[from] = true
			continue
		}
		m.Writes = append(m.Writes, MigratedObject{Object: name, From: from, Written: written, Changes: Diff(obj, written)})
	}
	for v := range versions {
		m.StoredVersions = append(m.StoredVersions, v)
	}
	sort.Strings(m.StoredVersions)
	return m
}

func marshalCompact(v any) ([]byte, error) { return json.Marshal(v) }
