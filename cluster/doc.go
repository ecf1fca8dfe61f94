// Package cluster is writepath's in-memory Kubernetes API server: state (a Store with one
// revision counter as resourceVersion and an event history for watches), the request path
// (registry.Handle over that state, writes serialised), the garbage collector and the namespace
// controller run after writes (gc), and the REST http.Handler clients talk to.
//
// The storage model is etcd's as kube-apiserver uses it. A Store holds objects by key (group,
// resource, namespace, name) in several versions each; every write takes the next value of one
// counter shared by all resources, and that revision is the object's metadata.resourceVersion. A
// write is a compare-and-swap on the key's mod revision (0 for a create). Reads and watches may
// start at any revision the store still keeps; past that they are too old (410 Gone). Lists come
// in etcd key order, which is the order kube-apiserver lists in.
//
// A Cluster answers each request with registry.Handle over a World backed by its Store, under one
// lock, and stores each write as a compare-and-swap on the mod revision of the object as Handle
// read it, so that the optimistic concurrency Handle checked holds even when another server
// shares the store (storage/etcd): a write that lost the race is answered again over the new
// state, as the apiserver's GuaranteedUpdate retries. The resourceVersion a client gets is the
// revision the store gave the write (registry.Stored replaces the placeholder Handle was given;
// on one server they are equal).
//
// After a write the controllers kube-controller-manager would run on it (the garbage collector,
// the namespace controller, storage protection, Deployment and ReplicaSet, service accounts,
// resource quota) and
// a stand-in kubelet run to their fixpoint, each of their writes a request through registry, so
// the state a client reads next is the one a real control plane settles in (Controllers,
// below). The REST http.Handler serves that state as kube-apiserver serves it: discovery,
// OpenAPI, CRUD, patch, apply, subresources, list and watch, tables and protobuf.
//
// # Usage
//
//	c, err := cluster.New(cluster.Options{Clock: cluster.NewFakeClock(t0)}) // an empty store
//	err = c.Bootstrap(ctx) // what kube-apiserver creates when it starts: system namespaces, the
//	                       // kubernetes Service, the RBAC policy, ... (writepath serve and envtest do)
//	resp, err := c.Do(ctx, registry.Request{Method: "POST", Path: "/api/v1/namespaces", Body: ns})
//	srv := cluster.StartTLS(c) // https://127.0.0.1:PORT
//	defer srv.Close()
//	os.WriteFile("kubeconfig", srv.Kubeconfig(), 0o600) // kubectl --kubeconfig kubeconfig get ns
//
// The store on its own:
//
//	s := cluster.NewMemoryStore(cluster.MemoryOptions{})
//	rev, err := s.Write(ctx, cluster.Write{Key: key, Value: obj}) // create: ModRevision 0
//	got, err := s.Get(ctx, key)                                    // got.Value's resourceVersion is rev
//	_, err = s.Write(ctx, cluster.Write{Key: key, Value: changed, ModRevision: got.ModRevision})
//	w, err := s.Watch(ctx, cluster.Prefix{Resource: "configmaps"}, rev) // events after rev
//	for ev := range w.Events() { ... }
//
// # Invariants
//
//   - A Store copies what it is given and returns fresh copies from Get and List; a watch
//     event's Value is shared by every watcher and is read-only.
//   - Every Store method is safe for concurrent use; writes are serialised, so revisions are
//     strictly increasing and every successful write has its own revision.
//   - Writers never wait on watchers: a watcher that falls more than its buffer behind is closed
//     with ErrWatcherTooSlow.
//   - A Cluster is safe for concurrent use; requests that write are serialised.
//   - Time is Options.Clock's: every timestamp a write records, the controllers' clock, Event
//     expiry and the leader election's Lease; uids and generated names come from Options.Seed.
//     With a FakeClock and a fixed seed the same requests get the same answers. Real timers only
//     pace what waits: a watch's timeoutSeconds and bookmarks, the leader election's rounds.
//   - A resource that shares another's storage in kube-apiserver (schema.SharedStorage: the
//     events.k8s.io Events are core Events) is stored under the other's key and in its version:
//     what one group writes, the other reads, lists, watches, updates and deletes, each in its
//     own version (recorded: crud/events-one-storage).
//   - Costs: a write is amortised O(log k) for a key with k kept versions; a list is linear in the
//     keys of its resource (n log n after n creates since the last list); memory is the objects
//     plus at most 2×History superseded versions and events.
//
// # Errors
//
// *NotFoundError (a missing key), *ConflictError (a failed compare-and-swap; Exists for a create
// of an existing key), *TooOldError (a revision no longer kept), *FutureRevisionError (a revision
// not reached yet), ErrWatcherTooSlow (Watcher.Err of a closed slow watcher). The HTTP layer turns
// them into the apiserver's Status responses.
//
// # Controllers
//
// For a write that can give them work (a deletion, a Terminating object, ownerReferences), the garbage
// collector and the namespace controller run to their fixpoint (gc.Run over a snapshot) and their
// writes are stored in order, so a foreground deletion or a namespace deletion has finished when
// the DELETE returns; a Service they delete has its IPAddresses deleted after it, as the
// Service REST's AfterDelete does for their DELETEs (Service allocation: registry's package
// documentation). kube-apiserver's IP repair loop (ipallocator-repair-controller) is not run:
// it acts on its 3-minute resync (an IPAddress deleted by hand for a Service that keeps the
// address is recreated) or after 60 s grace periods (an allocator's IPAddress whose Service is
// gone is deleted), never at once; nor is kube-controller-manager's ServiceCIDR controller
// (a ServiceCIDR created by hand has no finalizer or Ready condition, as on the recording
// control plane, and is used as Ready). The storage protection controllers (pvc-protection, pv-protection,
// vac-protection; protection.go) run with them: a deleted claim no unfinished Pod mounts, an
// unbound volume and an unused VolumeAttributesClass lose the finalizer the
// StorageObjectInUseProtection admission plugin gave them, and go. A write to a Deployment, ReplicaSet or Pod also runs the Deployment and
// ReplicaSet controllers (controllers/deployment, controllers/replicaset) and a stand-in kubelet
// (Options.Kubelet: Pods Running and Ready at once, left Pending, or Ready once the clock moved;
// SetPodReady for one Pod) until nothing changes: each controller write is a request through
// registry as kube-controller-manager's user, so it is validated, defaulted and owned
// (managedFields "kube-controller-manager") as on a real server; the kubelet stand-in patches
// pods/status as a node's kubelet (manager "kubelet"). The controllers read through an index of
// each object's controller and sync only the keys their event handlers would queue (every key
// when the clock moved, and on Settle). Options.NoWorkloadControllers turns these two and the
// kubelet off (writepath serve --controllers=*,-deployment,-replicaset), for a server that leaves
// Deployments as written, as envtest's kube-apiserver and etcd do.
//
// The resource quota controller (resourcequota.go, controllers/resourcequota.Sync) writes each
// ResourceQuota's status (hard = spec.hard, used = the namespace's usage of each hard resource)
// through PUT resourcequotas/NAME/status as kube-controller-manager, when the real one syncs: a
// quota created or its spec.hard changed, a tracked object deleted, a Pod, Service or claim
// changed as the quota monitor's update filter says, every quota on Settle (its full resync).
// Creates are charged by the ResourceQuota admission plugin (registry) during the request; a
// create refused after admission keeps its charge until one of those syncs, as on a real
// cluster. Options.NoResourceQuotaController turns it off (serve --controllers=*,-resourcequota).
//
// apiextensions-apiserver's own controllers run after every write, whatever Options.Controllers
// says (they are the apiserver's, not kube-controller-manager's): a written CRD gets its names
// accepted and is Established (establishCRD); a deleted one, which the DELETE answers Terminating
// with the customresourcecleanup finalizer, has its instances deleted and then goes
// (crdfinalizer.go), waiting for instances that finalizers of their own hold.
//
// Custom resources are stored in their CRD's storage version (registry.Conversions). For a CRD
// whose conversion strategy is Webhook the cluster builds the webhook's client from the stored
// CRD (conversion.NewClient: HTTPS to clientConfig.url, the caBundle as the only trusted roots,
// 30 s timeout), once per revision of the CRD, so a changed clientConfig is used from the next
// request on. A service reference is not reached: a Service that does not exist fails each
// conversion in the apiserver's words (`Post "https://<name>.<namespace>.svc:443/...": service
// "<name>" not found`), one that exists fails saying the in-memory cluster cannot reach it (the
// apiserver posts to its cluster IP). Writes, gets and lists through another version than the storage
// one call the webhook as kube-apiserver does; a watch through another version converts each
// event once for every watcher of that version, as each version's watch cache decodes it; once
// the webhook fails to convert an event, that watch sends nothing more, as the real watch cache
// stops delivering when it cannot decode an object (recorded: the later events of objects it
// converts do not come either; what follows the failing object's deletion is not recorded).
//
// The Events the two controllers record are stored as kube-controller-manager's event
// recorders (k8s.io/client-go tools/record) store them, right after the writes of the sync that
// recorded them (KCM writes them from a goroutine): core/v1 Events created through registry as
// the controllers' service accounts (system:serviceaccount:kube-system:deployment-controller,
// ...-replicaset-controller), named <involvedObject.name>.<UnixNano in hex>, the involvedObject
// as the sync read it (kind, apiVersion, namespace, name, uid, resourceVersion), source and
// reportingComponent the controller, count 1, first and last timestamps the clock;
// ScalingReplicaSet and, for a ReplicaSet create the API refuses, ReplicaSetCreateError
// (FailedRSCreate: "Failed to create new replica set ...: " and the API's words, with the
// Progressing condition of that reason written to the Deployment's status, as getNewReplicaSet
// goes on from the refusal; the cluster syncs the Deployment again told that refusal) on the
// Deployment, SuccessfulCreate (naming the Pod the apiserver generated),
// SuccessfulDelete, FailedCreate and FailedDelete (the API's refusal) on the ReplicaSet. Each
// recorder's EventCorrelator is modelled: identical Events are one Event whose count and
// lastTimestamp a strategic merge patch raises; from the tenth message of similar Events (same
// object, type, reason) within 10 minutes they are combined into one "(combined from similar
// events): " Event, counted up likewise; the spam filter lets 25 Events per source and object
// through, then one every 5 minutes of the clock; its caches are LRUs of 4,096 entries. Not
// modelled: a fake clock that does not move gives every Event the same instant, so each further
// Event at that instant is named with the next nanosecond (a real clock's names differ anyway);
// the aggregator drops an arbitrary message of its set where this one drops the least (the
// same inputs give the same Events); KCM's broadcaster drops Events when 1,000 wait to be
// written, and retries writes on transport errors, neither of which happens here (both
// depend on goroutine timing and the network, which no deterministic model reproduces); a
// refused sync is retried when the next round or settle runs, not after the workqueue's
// rate-limited backoff (5 ms doubling, dropped after 15 retries), so an Event counted up by
// retries counts the syncs the cluster ran. Events expire as the apiserver's --event-ttl
// makes them (Options.EventTTL, 1 h by default): one TTL after an Event's last write on the
// cluster's clock it is deleted from the store, as etcd deletes a key whose lease ran out (no
// request, no admission; watchers see DELETED), at the first request or Settle past that
// instant; with several servers on one store, the server that wrote an Event last expires it
// (a compare-and-swap on the revision of that write). The service account controller gives every Active namespace its "default"
// ServiceAccount (the ServiceAccount admission plugin refuses Pods without one). Settle runs
// every controller to its fixpoint on demand (after FakeClock.Step, for minReadySeconds and
// progress deadlines).
//
// # The REST handler
//
// The REST handler serves /version, /healthz, /livez, /readyz, legacy discovery (/api, /apis,
// /api/v1, /apis/GROUP[/VERSION]) from the catalogue and the stored CRDs, every resource request
// through registry, and watch as the apiserver's JSON event stream (ADDED, MODIFIED, DELETED,
// ERROR with a 410 past the history, the initial events of a WatchList ending with a BOOKMARK
// annotated k8s.io/initial-events-end). Requests are authenticated by bearer token (Options.Tokens,
// or everyone is Admin), and TokenReviews ask the same tokens (authn.go, for
// Options.APIAudiences); the Impersonate-User, -Group, -Uid and -Extra-* headers make a request
// act as that user, as kube-apiserver's impersonation filter does (a service account's groups,
// system:authenticated added), without the check that the requesting user may impersonate.
// Access reviews are answered by RBAC over the stored roles and bindings (registry, rbac), but
// RBAC is not enforced on requests. StartTLS serves a cluster on a loopback HTTPS port and writes its
// kubeconfig. Built-in resources also speak the Kubernetes protobuf encoding client-go's typed
// clients use (protobuf.go): request bodies by Content-Type, responses (objects, lists, Status)
// and watch frames by Accept; custom resources answer 415 and 406 as the apiserver does.
//
// # Lists and watches
//
// Lists and watches follow kube-apiserver 1.37's watch cache: labelSelector and fieldSelector
// (each kind's field labels, schema.ConvertFieldLabel), resourceVersion "" / "0" / N with
// resourceVersionMatch NotOlderThan or Exact (410 Expired past the kept history, 504 for a
// revision not reached yet, answered at once where the apiserver first waits 3s), limit and
// continue with the apiserver's continue tokens (registry.Pager, implemented over the Store); a
// selected watch turns an object that comes to match into ADDED and one that stops matching into
// DELETED; allowWatchBookmarks sends a BOOKMARK every minute; timeoutSeconds ends the stream.
//
// # Discovery and OpenAPI
//
// Discovery and OpenAPI are kube-apiserver 1.37's, compared with recordings of the real server
// (testdata/cluster/openapi): aggregated discovery (apidiscovery.k8s.io/v2, JSON or protobuf, by
// Accept; v2beta1 is 406 as in 1.37) with groups in the apiserver's priority order, CRDs' kinds and
// subresources included; /openapi/v3 (the index with ?hash= URLs, 301 for a stale hash, immutable
// caching for a current one) and /openapi/v2 (JSON, or gnostic's protobuf as kubectl asks). The
// built-in documents are the real server's, recorded and embedded (data/openapi); a CRD's are
// built from its served versions' schemas as apiextensions-apiserver builds them (openapi_crd.go:
// the same documents for the recorded CRDs), rebuilt when the stored CRDs change. Nothing is built
// in New: documents are built on their first request and cached per CRD state (the first v2
// request of a process costs ~160 ms, v3 ~40 ms; later states ~20 ms for v2 JSON). Not the
// apiserver's: /openapi/v3 has no protobuf form (406; kubectl and client-go ask for JSON); in v2,
// a CRD's operations write their parameters in place where the apiserver refers to shared ones
// (#/parameters/...), which reads the same; the legacy documents are JSON or YAML (the apiserver
// also writes protobuf; asked for it, they answer JSON) and list no storageVersionHash.
//
// # Output transformations
//
// Output transformations are the apiserver's (table.go, negotiate.go), compared with recordings
// of the real server (testdata/cluster/table, TestTableRecorded). Accept is negotiated as
// kube-apiserver negotiates it (goautoneg's clause order; Table only in JSON or YAML,
// PartialObjectMetadata(List) in JSON, YAML or protobuf, for custom resources too; the two 406s:
// go-restful's "406: Not Acceptable" for a built-in whose Accept names no media type its route
// produces, the handler's "only the following media types are accepted"). A Table
// (meta.k8s.io/v1 or v1beta1) is served for get, list, watch and the answers of writes, with
// every column (the apiserver prints wide), includeObject Metadata (default), Object or None,
// and in a watch columnDefinitions only in the first event, as kubectl get -w reads them. Its
// columns: the built-in printers of pkg/printers/internalversion (printers.go, printers_rows.go;
// column definitions generated from the reference source into printercolumns.json) for every
// kind served by default that has one — Pod, Service, ConfigMap, Secret, Namespace, Node,
// Event (and events.k8s.io's), ServiceAccount, Endpoints, PersistentVolume(Claim),
// ReplicationController, PodTemplate, ResourceQuota, ComponentStatus, Deployment, ReplicaSet,
// StatefulSet, DaemonSet, ControllerRevision, Job, CronJob, HorizontalPodAutoscaler (v1 and v2),
// Scale, PodDisruptionBudget, Ingress, IngressClass, NetworkPolicy, ServiceCIDR, IPAddress,
// EndpointSlice, (Cluster)RoleBinding, StorageClass (the list's effective default marked),
// CSIDriver, CSINode, VolumeAttachment, VolumeAttributesClass, Lease,
// LeaseCandidate, PriorityClass, RuntimeClass, the webhook configurations, (Validating|Mutating)
// AdmissionPolicy(Binding), FlowSchema (listed by precedence), PriorityLevelConfiguration,
// CertificateSigningRequest, ClusterTrustBundle, PodCertificateRequest, DeviceClass,
// DeviceTaintRule, ResourceClaim(Template), ResourceSlice, StorageVersion,
// StorageVersionMigration; apiextensions' CustomResourceDefinition table and kube-aggregator's
// APIService table; Name and Created At for the kinds without one (Roles, ClusterRoles,
// LimitRanges, CSIStorageCapacities, ...); a custom resource's additionalPrinterColumns (JSONPath cells typed as
// apiextensions types them, Age when it has none) and its scale subresource's Desired and
// Available. AGE cells are the time since creation on the cluster's clock (a FakeClock makes
// them deterministic). Not the apiserver's: a Table's JSON keys are sorted where the apiserver
// writes struct order; printers of alpha kinds not served by default fall back to the default
// table.
//
// # Not served
//
// Not served yet (issue 17): watch events in a custom resource's requested version when it differs from the stored one,
// the default admission plugins registry does not model (the certificate plugins), RBAC on requests (every authenticated user may do everything; the
// access reviews do evaluate RBAC, so a SubjectAccessReview may deny what the cluster then
// allows). The bootstrap RBAC policy kube-apiserver creates at start (cluster-admin,
// system:basic-user, system:discovery, ... and their bindings) is stored by Bootstrap, so the
// reviews answer from it as the real server does.
package cluster
