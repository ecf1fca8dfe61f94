import json,sys
d=int(sys.argv[1]); items=sys.argv[2]=='items'; name=sys.argv[3]
s='{"type":"string"}'
for i in range(d):
    s = '{"type":"array","items":'+s+'}' if items else '{"type":"object","properties":{"a":'+s+'}}'
plural=name+'s'
print('{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"%s.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"%s","singular":"%s","kind":"%s","listKind":"%sList"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":%s}}}}]}}' % (plural,plural,name,name.capitalize(),name.capitalize(),s))
